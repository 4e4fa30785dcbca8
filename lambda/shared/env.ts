/** Fail-fast environment helpers: a missing variable stops the cold start with its name. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`Environment variable ${name} is not set`);
  }
  return value;
}

export function requireJsonEnv<T>(name: string): T {
  const raw = requireEnv(name);
  try {
    return JSON.parse(raw) as T;
  } catch {
    throw new Error(`Environment variable ${name} is not valid JSON`);
  }
}

export function requirePositiveIntEnv(name: string): number {
  const raw = requireEnv(name);
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`Environment variable ${name} must be a whole number above 0, not ${JSON.stringify(raw)}`);
  }
  return value;
}
