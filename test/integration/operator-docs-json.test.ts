import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../lib/support/cdk-app.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// docs/operators/cli.md's `npm run -s platform -- … --json` lines, run as written against the local
// platform (PLATFORM_CONTROL_URL points them at it); their stdout must be exactly one JSON document,
// which is what the `| jq` after them needs (the test parses it instead of running jq).
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.stop());

function documentedJsonCommands(): string[] {
  const text = readFileSync(join(REPO_ROOT, 'docs/operators/cli.md'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.startsWith('npm run -s platform -- ') && line.includes('--json'))
    .map((line) => line.replace(/\s*\|\s*jq .*$/, ''));
}

/** Runs a shell line asynchronously (the platform answers in this very process). */
function run(command: string): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', command],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PLATFORM_CONTROL_URL: platform.controlUrl } },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the CLI\'s --json examples', () => {
  it('print one JSON document on stdout, as written', async () => {
    const commands = documentedJsonCommands();
    expect(commands.length).toBeGreaterThanOrEqual(2);
    for (const command of commands) {
      const result = await run(command);
      expect(result.status, `${command}\n${result.stderr}`).toBe(0);
      expect(() => JSON.parse(result.stdout), command).not.toThrow();
    }
    const account = JSON.parse((await run(commands[0] as string)).stdout) as { plan: string };
    expect(account.plan).toBe('pro');
  }, 120_000);

  it('need the -s: without it npm\'s banner comes first and stdout is not JSON', async () => {
    const result = await run((documentedJsonCommands()[0] as string).replace('npm run -s ', 'npm run '));
    expect(result.status).toBe(0);
    expect(() => JSON.parse(result.stdout)).toThrow();
  }, 60_000);
});
