import { expect } from 'vitest';
import { run } from '../../cli/commands.js';

export interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The operator CLI in process (cli/commands.ts `run`), its output captured; no environment unless given. */
export async function runCli(argv: readonly string[], env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env,
  });
  return { code, stdout, stderr } satisfies CliOutcome;
}

/**
 * The operator CLI against a local control API (`url()`, read at each call): `cli(...argv)` adds
 * `--url`; `json(...argv)` adds `--json`, expects exit 0 and parses what it printed.
 */
export function cliAgainst(url: () => string) {
  const cli = (...argv: string[]) => runCli([...argv, '--url', url()]);
  async function json<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
    const out = await cli(...argv, '--json');
    expect(out.code, out.stderr).toBe(0);
    return JSON.parse(out.stdout) as T;
  }
  return { cli, json };
}
