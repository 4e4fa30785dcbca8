import { CredentialsError, environmentCredentials } from './aws/credentials.js';

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

class CredentialsProviderError extends Error {
  // The SDK's credential chains look at these to decide whether another provider may be tried.
  readonly tryNextLink = false;

  constructor(message: string) {
    super(message);
    this.name = 'CredentialsProviderError';
  }
}

const fromEnvironment = environmentCredentials();

/**
 * The SDK clients call this as `credentialDefaultProvider(config)`; the result is memoized by the SDK.
 * The variables are read by the platform's own client's `environmentCredentials`, plus the two
 * the SDK also carries (credential scope, account id).
 */
export const defaultProvider =
  (_init: unknown = {}) =>
    async () => {
      try {
        const credentials = await fromEnvironment();
        const credentialScope = process.env.AWS_CREDENTIAL_SCOPE;
        const accountId = process.env.AWS_ACCOUNT_ID;
        return {
          ...credentials,
          ...(credentialScope ? { credentialScope } : {}),
          ...(accountId ? { accountId } : {}),
        };
      } catch (error) {
        if (!(error instanceof CredentialsError)) throw error;
        throw new CredentialsProviderError(
          'Unable to find environment variable credentials (the Lambda bundles read AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY only).',
        );
      }
    };
