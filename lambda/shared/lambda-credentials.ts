import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * The bundles' `@aws-sdk/credential-provider-node` (an esbuild alias in PlatformFunction): on Lambda
 * the role's credentials are in the environment, the default chain's first link (bench/README.md says why).
 */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
