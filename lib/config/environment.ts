import { ConfigError, type PlatformConfig } from './platform-config.js';

/**
 * One environment (production, staging...) = one stack prefix. It names the stacks
 * (`<prefix>-Api`...), is the value of the `Environment` tag, and is the CloudWatch namespace of
 * the environment's custom metrics, so that two environments in one account and region never
 * read each other's metrics (docs/operators/operations.md, "Environments").
 */
export const DEFAULT_STACK_PREFIX = 'MessagesPlatform';

/** The `Application` tag of every stack and resource. */
export const APPLICATION_TAG = 'MessagesPlatform';

/** Anything with a construct node (a Construct), without importing `constructs` here. */
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

/** The environment (stack prefix) a construct is synthesized for: the `stackPrefix` context. */
export function stackPrefixOf(scope: HasContext): string {
  return validStackPrefix(scope.node.tryGetContext('stackPrefix'));
}

/**
 * The CloudWatch namespace of the environment's custom metrics (Powertools in every function,
 * the alarms and the ops dashboard): the stack prefix. A stack prefix is a valid namespace
 * (letters, digits, "-"; it cannot start with "AWS/").
 */
export function metricsNamespaceOf(scope: HasContext): string {
  return stackPrefixOf(scope);
}

/** The tags of every stack and resource of an environment. */
export function environmentTags(config: PlatformConfig, stackPrefix: string): Record<string, string> {
  return { ...config.environment.tags, Environment: stackPrefix, Application: APPLICATION_TAG };
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
