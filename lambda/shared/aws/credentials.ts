export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

export type CredentialsProvider = () => Promise<AwsCredentials>;

/** Thrown when no credentials can be found; not a dependency failure (a deployment bug). */
export class CredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialsError';
  }
}

/** What Lambda provides: the function role's credentials in environment variables. */
export const environmentCredentials = (): CredentialsProvider => async () => {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw new CredentialsError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set');
  }
  const sessionToken = process.env.AWS_SESSION_TOKEN;
  const expiry = process.env.AWS_CREDENTIAL_EXPIRATION;
  return {
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    ...(expiry ? { expiration: new Date(expiry) } : {}),
  };
};

/** Credentials are fetched again this long before they expire, so no request is signed with stale ones. */
export const REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;

/**
 * One fetch shared by concurrent callers; cached until 5 minutes before `expiration` (for ever
 * without one). A failed fetch is not cached.
 */
export function memoizeCredentials(provider: CredentialsProvider, now: () => number = Date.now): CredentialsProvider {
  let pending: Promise<AwsCredentials> | undefined;
  let current: AwsCredentials | undefined;
  const fresh = (c: AwsCredentials) =>
    c.expiration === undefined || c.expiration.getTime() - REFRESH_BEFORE_EXPIRY_MS > now();
  return () => {
    if (current && fresh(current)) return Promise.resolve(current);
    pending ??= provider().then(
      (c) => {
        current = c;
        pending = undefined;
        return c;
      },
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    );
    return pending;
  };
}

/** Static credentials or a provider, memoized. */
export function resolveCredentials(credentials: AwsCredentials | CredentialsProvider | undefined): CredentialsProvider {
  if (credentials === undefined) return memoizeCredentials(environmentCredentials());
  if (typeof credentials === 'function') return memoizeCredentials(credentials);
  return () => Promise.resolve(credentials);
}
