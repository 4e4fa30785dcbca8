import { defaultConfig } from './defaults.js';
import { backstopFor, type PlanId, type PlatformConfig, type RuntimeConfig } from './plans.js';
import { validateConfig } from './platform-config.js';

export { defaultConfig } from './defaults.js';
export * from './environment.js';
export * from './plans.js';
export { ConfigError, validateConfig } from './platform-config.js';

function merge(base: unknown, override: unknown): unknown {
  if (override === undefined) return base;
  if (typeof base !== 'object' || base === null || typeof override !== 'object' || override === null) {
    return override;
  }
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(override as Record<string, unknown>)) {
    out[k] = merge(out[k], v);
  }
  return out;
}

/** The defaults with each override merged in deeply, in order (cdk.json's, then `-c platform=...`), validated. */
export function loadConfig(...overrides: unknown[]): PlatformConfig {
  return validateConfig(overrides.reduce((config, layer) => merge(config, layer), structuredClone(defaultConfig)));
}

/** API Gateway's default account-level burst: a usage plan cannot usefully burst above it. */
const API_GATEWAY_MAX_BURST = 5_000;

/** The backstop of a plan, or of all anonymous callers together (docs/operators/configuration.md). */
export function usageIdentifierBackstop(identifier: PlanId | 'anonymous', config: PlatformConfig) {
  const limits =
    identifier === 'anonymous'
      ? {
          perMinute: config.anonymous.perMinute * config.backstop.anonymousCallers,
          perDay: config.anonymous.perDay * config.backstop.anonymousCallers,
        }
      : config.plans[identifier].limits;
  const backstop = backstopFor(limits, config);
  return { ...backstop, burstLimit: Math.min(API_GATEWAY_MAX_BURST, backstop.burstLimit) };
}

/** The config without its deploy-time sections, to stay far below Lambda's 4 KB environment limit. */
export function runtimeConfig(config: PlatformConfig): RuntimeConfig {
  const { alarms: _alarms, protection: _protection, environment: _environment, ...runtime } = config;
  return runtime;
}
