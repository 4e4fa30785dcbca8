/**
 * The benchmarks' smoke run (issue 6, section 1): `bench/run.ts --smoke` with tiny counts must exit 0
 * and print a line for every figure (figures without a goal say `context`). Goals are not asserted: benchmarks are not timed tests, and a
 * shared machine decides the numbers.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const FIGURES = [
  'handler-overhead',
  'bundle-size',
  'cold-start',
  'local-e2e',
  'round-trips',
  'cost-per-million',
  'limiter-exactness',
  'limiter-scale',
  'synth',
];

function runSmoke(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke'], {
      cwd: REPO_ROOT,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 115_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run bench -- --smoke', () => {
  it('exits 0 and prints one `figure | value | goal | result` line per figure', { timeout: 120_000 }, async () => {
    const { code, stdout, stderr } = await runSmoke();
    expect(code, `stdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    const lines = stdout.split('\n').filter((l) => !l.startsWith('#') && l.includes(' | '));
    for (const figure of FIGURES) {
      const line = lines.find((l) => l.startsWith(figure));
      expect(line, `no line for ${figure} in:\n${stdout}`).toBeDefined();
      const fields = (line as string).split(' | ');
      expect(fields).toHaveLength(4);
      expect(['pass', 'fail', 'context', 'skipped']).toContain(fields[3]);
    }
  });
});
