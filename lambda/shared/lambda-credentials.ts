import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * What the Lambda bundles use instead of `@aws-sdk/credential-provider-node` (an esbuild alias in
 * PlatformFunction's bundling; nothing imports this module by name). Lambda hands a function its
 * role's credentials in environment variables, so the SDK's default chain can never get past its
 * first link there; this is that link, the SDK's own `fromEnv`. The measured reason (bundle size,
 * init time) is in bench/README.md. Code run outside Lambda (the CLI, the local platform, tests)
 * is not bundled and keeps the full default chain.
 */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
