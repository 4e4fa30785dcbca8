#!/usr/bin/env bash
# cfn-lint (AWS's CloudFormation linter) over every stack template of a synthesized cloud assembly,
# each against its own stack's region, with .cfnlintrc.yaml (ignored rules and why). Reads an
# existing synth (it never synthesizes, so the Lambda bundles are built once, by `cdk synth`).
#   bash scripts/cfn-lint.sh [cloud assembly directory, default cdk.out]
set -euo pipefail
cd "$(dirname "$0")/.."
outdir=${1:-cdk.out}

# The version the project is linted with. Without cfn-lint on PATH, it is installed into a
# project-local virtual environment (git-ignored) with Python 3, a prerequisite in the README.
CFN_LINT_VERSION=1.51.0
venv=${CFN_LINT_VENV:-.venv-cfn-lint}
python=${PYTHON:-python3}

if [[ -x "${venv}/bin/cfn-lint" ]]; then
  cfn_lint="${venv}/bin/cfn-lint"
elif command -v cfn-lint >/dev/null 2>&1; then
  cfn_lint=cfn-lint
else
  if ! command -v "$python" >/dev/null 2>&1; then
    echo "cfn-lint is not installed and ${python} was not found: install Python 3.9+ (a prerequisite in the README), then run again." >&2
    exit 1
  fi
  echo "cfn-lint is not installed: installing cfn-lint==${CFN_LINT_VERSION} into ${venv} (once)"
  if ! "$python" -m venv "$venv"; then
    echo "could not create the virtual environment ${venv}: Python's venv module is missing (Debian: apt-get install python3-venv)." >&2
    rm -rf "$venv"
    exit 1
  fi
  if ! "${venv}/bin/pip" install --disable-pip-version-check --quiet "cfn-lint==${CFN_LINT_VERSION}"; then
    echo "pip could not install cfn-lint==${CFN_LINT_VERSION} into ${venv} (is PyPI reachable?)." >&2
    rm -rf "$venv"
    exit 1
  fi
  cfn_lint="${venv}/bin/cfn-lint"
fi
installed=$("$cfn_lint" --version | cut -d' ' -f2)
if [[ $installed != "$CFN_LINT_VERSION" ]]; then
  echo "note: ${cfn_lint} is cfn-lint ${installed}; the project pins ${CFN_LINT_VERSION} (findings may differ)." >&2
fi
if [[ ! -f "${outdir}/manifest.json" ]]; then
  echo "no ${outdir}/manifest.json: run 'npx cdk synth --quiet' first." >&2
  exit 1
fi

# "<region> <template>" for each stack of the manifest; the manifest rather than a glob, because
# cdk.out keeps the templates of earlier synths (another stack prefix, a removed stack).
listing=$(node -e '
  const { join, resolve } = require("node:path");
  const dir = process.argv[1];
  const manifest = require(resolve(dir, "manifest.json"));
  for (const a of Object.values(manifest.artifacts ?? {})) {
    if (a.type !== "aws:cloudformation:stack") continue;
    const region = (a.environment ?? "").split("/").pop();
    console.log(`${region} ${join(dir, a.properties.templateFile)}`);
  }
' "$outdir")
mapfile -t stacks <<<"$listing"
if [[ -z $listing ]]; then
  echo "no stack templates in ${outdir}/manifest.json" >&2
  exit 1
fi

status=0
for region in $(printf '%s\n' "${stacks[@]}" | cut -d' ' -f1 | sort -u); do
  mapfile -t templates < <(printf '%s\n' "${stacks[@]}" | awk -v r="$region" '$1 == r { print $2 }')
  region_args=(--regions "$region")
  # An environment-agnostic stack has no region: cfn-lint's default (us-east-1) then.
  [[ $region == unknown-region ]] && region_args=()
  echo "cfn-lint ${installed} (${region}): ${templates[*]}"
  "$cfn_lint" --config-file .cfnlintrc.yaml "${region_args[@]}" -- "${templates[@]}" || status=1
done
exit "$status"
