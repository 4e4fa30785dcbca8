import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../lib/constructs/shared/platform-function.js';
import { type BenchOptions, type Figure, round } from './lib.js';

const BUDGET_SECONDS = 180;

/** `cdk synth --quiet --all` into a temporary directory (cdk.out of a concurrent run is left alone). */
export function synthTime(options: BenchOptions): Figure {
  const figure = 'synth (npx cdk synth --quiet --all)';
  const goal = `context; budget ≤ ${BUDGET_SECONDS} s`;
  if (options.smoke) return { figure, value: 'skipped in --smoke (full run only)', goal, pass: null };
  const out = mkdtempSync(join(tmpdir(), 'bench-synth-'));
  try {
    const started = performance.now();
    const run = spawnSync('npx', ['cdk', 'synth', '--quiet', '--all', '--output', out], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true' },
    });
    const seconds = round((performance.now() - started) / 1000, 1);
    if (run.status !== 0) {
      return { figure, value: `failed after ${seconds} s: ${(run.stderr || run.stdout).trim().split('\n').slice(-3).join(' ')}`, goal, pass: false };
    }
    return { figure, value: `${seconds} s`, goal, pass: seconds <= BUDGET_SECONDS, details: { seconds } };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
