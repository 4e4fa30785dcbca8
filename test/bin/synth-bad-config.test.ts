import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../lib/app.js';
import { ConfigError } from '../../lib/config/index.js';
import { REPO_ROOT } from '../lib/support/cdk-app.js';

const outdir = mkdtempSync(join(tmpdir(), 'cdk-bad-config-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** `cdk synth` with these extra arguments: its exit status and everything it printed. */
function cdkSynth(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(join(REPO_ROOT, 'node_modules/.bin/cdk'), ['synth', '--quiet', '--no-notices', '-o', outdir, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', CDK_DISABLE_VERSION_CHECK: 'true' },
  });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

const STACK_TRACE_LINE = /^\s+at .+(\(.+:\d+:\d+\)|:\d+:\d+)$/m;

describe('a bad platform config fails synth with a message naming the value', () => {
  it.each([
    ['a mistyped region', ['-c', 'platform={"platform":{"region":"eu-wset-1"}}'], 'platform.region: "eu-wset-1" is not an AWS region (did you mean "eu-west-1"?)'],
    ['context that is not JSON', ['-c', 'platform={"platform":'], 'context "platform" is not valid JSON'],
    ['a stack prefix with a space', ['-c', 'stackPrefix=my stack'], 'stackPrefix "my stack" must start with a letter'],
  ])('`cdk synth` with %s: exit 1, a clear message, no stack trace', (_what, args, message) => {
    const { status, output } = cdkSynth(...args);
    expect(status, output).toBe(1);
    expect(output).toContain('Invalid platform config');
    expect(output).toContain(message);
    expect(output).not.toMatch(STACK_TRACE_LINE);
  });

  it('`cdk synth -c platform=...` with plans.free.limits.perMinute = 0 exits non-zero and says why', () => {
    const result = spawnSync(
      join(REPO_ROOT, 'node_modules/.bin/cdk'),
      [
        'synth',
        '--quiet',
        '--no-notices',
        '-o',
        outdir,
        '-c',
        'platform={"plans":{"free":{"limits":{"perMinute":0}}}}',
      ],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', CDK_DISABLE_VERSION_CHECK: 'true' },
      },
    );
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.status, output).not.toBe(0);
    expect(output).toContain('Invalid platform config');
    expect(output).toContain('plans.free.limits.perMinute must be greater than 0');
    // A deployer error, not a crash: no stack trace.
    expect(output).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
  });

  it('buildApp throws a ConfigError naming every bad value (negative, not whole, inconsistent)', () => {
    const build = () =>
      buildApp({
        context: {
          platform: {
            plans: { free: { limits: { perMinute: -5 } }, pro: { limits: { perDay: 2.5 } } },
            anonymous: { perMinute: 100, perDay: 10 },
          },
        },
        nag: false,
      });
    expect(build).toThrow(ConfigError);
    try {
      build();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('plans.free.limits.perMinute must be greater than 0');
      expect(message).toContain('plans.pro.limits.perDay must be a whole number');
      expect(message).toContain('anonymous.perDay must be at least anonymous.perMinute');
    }
  });

  it('says which context value is not JSON', () => {
    expect(() => buildApp({ context: { platform: '{"plans":' }, nag: false })).toThrow(
      /context "platform" is not valid JSON/,
    );
  });
});
