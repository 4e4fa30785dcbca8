/** The longest `lastError` kept on a record. */
export const LAST_ERROR_MAX_CHARS = 500;

/** Secrets a processor's error may quote (a header, a URL's credentials or token), redacted: owners see it. */
const SECRETS: ReadonlyArray<[RegExp, string]> = [
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [/\b(sk|pk|rk)_(live|test)_[A-Za-z0-9]+/g, '[redacted]'],
  [/\bwhsec_[A-Za-z0-9+/=]+/g, '[redacted]'],
  [/\b(AKIA|ASIA)[A-Z0-9]{16}\b/g, '[redacted]'],
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, '[redacted]'],
  [/(\/\/)[^/\s:@]+:[^/\s@]+@/g, '$1[redacted]@'],
  [
    /\b(password|passwd|secret|token|api[_-]?key|access[_-]?key|authorization|signature|x-amz-signature)(["']?\s*[=:]\s*["']?)(?!Bearer\b|Basic\b|Token\b|\[redacted\])[^\s&"',;)\]}]+/gi,
    '$1$2[redacted]',
  ],
];

/** An attempt's error as the record keeps it: the message only, secrets scrubbed, one line, bounded. */
export function sanitizeError(error: unknown): string {
  const raw =
    error instanceof Error ? error.message : typeof error === 'string' ? error : `non-Error thrown (${typeof error})`;
  let text = raw.replace(/\s+/g, ' ').trim() || (error instanceof Error ? error.name : 'error');
  for (const [pattern, replacement] of SECRETS) text = text.replace(pattern, replacement);
  return text.length > LAST_ERROR_MAX_CHARS ? `${text.slice(0, LAST_ERROR_MAX_CHARS - 1)}…` : text;
}
