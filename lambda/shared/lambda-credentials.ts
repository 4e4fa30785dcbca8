/**
 * What the Lambda bundles use instead of `@aws-sdk/credential-provider-node` (an esbuild alias in
 * PlatformFunction's bundling; nothing imports this module by name). Lambda hands a function its
 * role's credentials in environment variables, so the SDK's default chain — profiles, SSO, web
 * identity, process, container and instance metadata, with the STS and SSO clients they bring
 * (about 85 KB of a 430 KB bundle) — can never get past its first link there. This is that first
 * link, `fromEnv`, with the same variables and the same error when they are missing.
 *
 * Code run outside Lambda (the local platform, tests, scripts) is not bundled and keeps the SDK's
 * default chain.
 */

interface EnvCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
  readonly credentialScope?: string;
  readonly accountId?: string;
}

class CredentialsProviderError extends Error {
  // The SDK's credential chains look at these to decide whether another provider may be tried.
  readonly tryNextLink = false;

  constructor(message: string) {
    super(message);
    this.name = 'CredentialsProviderError';
  }
}

/** The SDK clients call this as `credentialDefaultProvider(config)`; the result is memoized by the SDK. */
export const defaultProvider =
  (_init: unknown = {}) =>
    async (): Promise<EnvCredentials> => {
      const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
      const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
      if (!accessKeyId || !secretAccessKey) {
        throw new CredentialsProviderError(
          'Unable to find environment variable credentials (the Lambda bundles read AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY only).',
        );
      }
      const sessionToken = process.env.AWS_SESSION_TOKEN;
      const expiry = process.env.AWS_CREDENTIAL_EXPIRATION;
      const credentialScope = process.env.AWS_CREDENTIAL_SCOPE;
      const accountId = process.env.AWS_ACCOUNT_ID;
      return {
        accessKeyId,
        secretAccessKey,
        ...(sessionToken ? { sessionToken } : {}),
        ...(expiry ? { expiration: new Date(expiry) } : {}),
        ...(credentialScope ? { credentialScope } : {}),
        ...(accountId ? { accountId } : {}),
      };
    };
