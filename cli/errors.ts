/** Exit codes of the operator CLI: 1 when the platform, the network or AWS refused; 2 for usage errors. */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export interface CliErrorOptions {
  /** A stable code: the platform's problem code, or `usage`, `network`, `aws`, … */
  readonly code?: string;
  readonly status?: number;
  /** What to try next, printed on its own line after the error. */
  readonly hint?: string;
  readonly errors?: ReadonlyArray<{ field: string; message: string }>;
  readonly exitCode?: typeof EXIT_FAILURE | typeof EXIT_USAGE;
  readonly cause?: unknown;
}

/** An expected failure: one `error: <message>` line (plus a hint), no stack trace, never a key secret. */
export class CliError extends Error {
  readonly code?: string;
  readonly status?: number;
  readonly hint?: string;
  readonly errors?: CliErrorOptions['errors'];
  readonly exitCode: typeof EXIT_FAILURE | typeof EXIT_USAGE = EXIT_FAILURE;

  constructor(message: string, { cause, ...fields }: CliErrorOptions = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'CliError';
    Object.assign(this, fields);
  }
}

/** A usage error (unknown command or flag, missing flag, bad value): exit code 2. */
export function usageError(message: string, hint?: string): CliError {
  return new CliError(message, { code: 'usage', exitCode: EXIT_USAGE, ...(hint ? { hint } : {}) });
}

/** JSON.parse, throwing `refusal()` instead of a SyntaxError. */
export function parseJson(text: string, refusal: () => CliError): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw refusal();
  }
}
