#!/usr/bin/env bash
# `npm test`: every check the project has, in order, failing fast with the step that failed.
# lint → type check → OpenAPI lint → unit → infra (CDK assertions + cdk-nag) → integration
# (real HTTP against the local platform) → browser (the dashboard in Chromium) → `cdk synth` of every
# stack with cdk-nag and the AWS Control Tower rules (cfn-guard) → cfn-lint of the templates it wrote →
# the Lambda bundles synth wrote, each invoked with its template's environment against the emulators.
set -euo pipefail
cd "$(dirname "$0")/.."

export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
export AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true
results_dir=$(mktemp -d)
trap 'rm -rf "$results_dir"' EXIT

step() {
  local name=$1
  shift
  echo
  echo "==> ${name}: $*"
  local started=$SECONDS
  if ! "$@"; then
    echo "==> FAILED: ${name} ($((SECONDS - started)) s)"
    exit 1
  fi
  echo "==> ok: ${name} ($((SECONDS - started)) s)"
}

vitest_project() {
  npx vitest run --project "$1" --reporter=default --reporter=json --outputFile="${results_dir}/$1.json"
}

step "lint and format (eslint)" npx eslint .
step "type check (tsc)" npx tsc --noEmit -p tsconfig.json
step "OpenAPI lint (redocly)" npx redocly lint openapi/openapi.yaml openapi/control-api.yaml
step "unit tests" vitest_project unit
step "infra tests (CDK assertions, cdk-nag)" vitest_project infra
step "integration tests (local platform)" vitest_project integration
step "browser tests (dashboard in Chromium)" vitest_project browser
step "cdk synth of every stack with cdk-nag and the Control Tower rules (cfn-guard)" npx cdk synth --quiet
# The templates that synth wrote (no second synth, so the Lambda bundles are built once).
step "CloudFormation lint (cfn-lint) of every synthesized template" bash scripts/cfn-lint.sh cdk.out
# The bundles that synth just wrote to cdk.out (not built again): the artifacts that get deployed.
step "Lambda bundles from cdk.out (invoked against the emulators)" vitest_project bundles

# One closing line with the totals of every vitest project.
node -e '
  const fs = require("node:fs");
  let passed = 0, failed = 0, skipped = 0;
  for (const f of fs.readdirSync(process.argv[1])) {
    const r = JSON.parse(fs.readFileSync(`${process.argv[1]}/${f}`, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + r.numTodoTests;
  }
  if (passed === 0) { console.error("no tests ran"); process.exit(1); }
  console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(failed === 0 ? 0 : 1);
' "$results_dir"
