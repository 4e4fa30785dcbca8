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
