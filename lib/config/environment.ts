import { ConfigError, type PlatformConfig } from './platform-config.js';

/**
 * One environment = one stack prefix: it names the stacks, is the `Environment` tag and the
 * namespace of the custom metrics (docs/operators/deploy.md, "A second environment").
 */
export const DEFAULT_STACK_PREFIX = 'MessagesPlatform';

/** Anything with a construct node, without importing `constructs` here. */
interface HasContext {
  readonly node: { tryGetContext(key: string): unknown };
}

const STACK_PREFIX = /^[A-Za-z][A-Za-z0-9-]{0,80}$/;

/** Validates a stack prefix (CDK context `stackPrefix`); a bad one is a ConfigError. */
export function validStackPrefix(value: unknown): string {
  const prefix = value === undefined ? DEFAULT_STACK_PREFIX : String(value);
  if (!STACK_PREFIX.test(prefix)) {
    throw new ConfigError([
      `stackPrefix "${prefix}" must start with a letter and use only letters, digits and "-" (at most 81 characters), e.g. -c stackPrefix=Staging`,
    ]);
  }
  return prefix;
}

/** The CloudWatch namespace of the environment's custom metrics: its stack prefix (a valid namespace). */
export function metricsNamespaceOf(scope: HasContext): string {
  return validStackPrefix(scope.node.tryGetContext('stackPrefix'));
}

/** The tags of every stack and resource of an environment. */
export function environmentTags(config: PlatformConfig, stackPrefix: string): Record<string, string> {
  return { ...config.environment.tags, Environment: stackPrefix, Application: 'MessagesPlatform' };
}

/** Parses a context value given on the command line (`-c platform='{...}'`: a JSON string). */
export function contextJson(key: string, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new ConfigError([`context "${key}" is not valid JSON: ${(e as Error).message}`]);
  }
}
