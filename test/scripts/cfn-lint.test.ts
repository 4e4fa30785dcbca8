import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// scripts/cfn-lint.sh on a fresh machine: without cfn-lint on PATH it installs the pinned version
// into a project-local virtual environment with Python 3, once. PyPI is not reached here: python3,
// its venv's pip and the installed cfn-lint are fakes that record their arguments, on a PATH that
// holds nothing else but the tools the script itself uses.

const SCRIPT = resolve(import.meta.dirname, '../../scripts/cfn-lint.sh');
const TOOLS = ['bash', 'node', 'cut', 'sort', 'awk', 'rm', 'dirname', 'mkdir', 'cat', 'chmod'];

let dir: string;
let bin: string;
let log: string;

function which(tool: string): string {
  const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
  if (!found) throw new Error(`${tool} not found on this machine`);
  return found;
}

function script(path: string, body: string): void {
  writeFileSync(path, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(path, 0o755);
}

/** A cfn-lint that says its version and records every other call. */
const fakeCfnLint = (version: string) => `
if [[ $1 == --version ]]; then echo "cfn-lint ${version}"; exit 0; fi
echo "cfn-lint $*" >> "${'$'}{FAKE_LOG}"`;

/** python3 -m venv DIR: a venv whose pip installs a fake cfn-lint (or fails, with FAKE_PIP_FAILS). */
const FAKE_PYTHON = `
echo "python3 $*" >> "$FAKE_LOG"
[[ $1 == -m && $2 == venv ]] || exit 2
mkdir -p "$3/bin"
cat > "$3/bin/pip" <<'PIP'
#!/usr/bin/env bash
echo "pip $*" >> "$FAKE_LOG"
[[ -n ${'$'}{FAKE_PIP_FAILS:-} ]] && exit 1
venv_bin=$(dirname "$0")
cat > "$venv_bin/cfn-lint" <<'LINT'
#!/usr/bin/env bash
${fakeCfnLint('1.51.0')}
LINT
chmod +x "$venv_bin/cfn-lint"
PIP
chmod +x "$3/bin/pip"`;

function run(extraEnv: Record<string, string> = {}) {
  const result = spawnSync('bash', [SCRIPT, join(dir, 'cdk.out')], {
    encoding: 'utf8',
    env: { PATH: bin, HOME: dir, FAKE_LOG: log, CFN_LINT_VENV: join(dir, 'venv'), ...extraEnv },
  });
  const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, calls };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cfn-lint-script-'));
  bin = join(dir, 'bin');
  log = join(dir, 'calls.log');
  mkdirSync(bin);
  for (const tool of TOOLS) symlinkSync(which(tool), join(bin, tool));
  const out = join(dir, 'cdk.out');
  mkdirSync(out);
  writeFileSync(join(out, 'Stack.template.json'), '{"Resources":{}}');
  writeFileSync(join(out, 'manifest.json'), JSON.stringify({
    artifacts: {
      Stack: { type: 'aws:cloudformation:stack', environment: 'aws://unknown-account/eu-west-1', properties: { templateFile: 'Stack.template.json' } },
    },
  }));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('scripts/cfn-lint.sh', () => {
  it('without cfn-lint, installs the pinned version into the project-local venv once, then lints with it', () => {
    script(join(bin, 'python3'), FAKE_PYTHON);
    const first = run();
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('installing cfn-lint==1.51.0');
    const venv = join(dir, 'venv');
    expect(first.calls).toEqual([
      `python3 -m venv ${venv}`,
      'pip install --disable-pip-version-check --quiet cfn-lint==1.51.0',
      `cfn-lint --config-file .cfnlintrc.yaml --regions eu-west-1 -- ${join(dir, 'cdk.out', 'Stack.template.json')}`,
    ]);
    rmSync(log);
    const again = run();
    expect(again.status).toBe(0);
    expect(again.calls.filter((c) => !c.startsWith('cfn-lint '))).toEqual([]);
  });

  it('uses a cfn-lint already on PATH and never calls Python', () => {
    script(join(bin, 'python3'), FAKE_PYTHON);
    script(join(bin, 'cfn-lint'), fakeCfnLint('1.51.0'));
    const result = run();
    expect(result.status).toBe(0);
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0]).toMatch(/^cfn-lint --config-file \.cfnlintrc\.yaml --regions eu-west-1 -- /);
    expect(result.stderr).toBe('');
  });

  it('says when the cfn-lint on PATH is not the pinned version', () => {
    script(join(bin, 'cfn-lint'), fakeCfnLint('1.40.0'));
    const result = run();
    expect(result.status).toBe(0);
    expect(result.stderr).toContain('cfn-lint 1.40.0; the project pins 1.51.0');
  });

  it('fails naming the prerequisite when there is neither cfn-lint nor Python 3', () => {
    const result = run();
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/python3 was not found: install Python 3\.9\+ \(a prerequisite in the README\)/);
  });

  it('fails, leaving no half-made venv, when pip cannot install', () => {
    script(join(bin, 'python3'), FAKE_PYTHON);
    const result = run({ FAKE_PIP_FAILS: '1' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('pip could not install cfn-lint==1.51.0');
    expect(existsSync(join(dir, 'venv'))).toBe(false);
  });
});
