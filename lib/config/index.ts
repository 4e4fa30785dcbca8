import { defaultConfig } from './defaults.js';
import { backstopFor, type PlanDefinition, type PlanId, type PlatformConfig, type RuntimeConfig } from './plans.js';
import { validateConfig } from './platform-config.js';

export { defaultConfig } from './defaults.js';
export * from './environment.js';
export * from './plans.js';
export { ConfigError, validateConfig } from './platform-config.js';

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

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

/**
 * The platform config: the defaults, with deployer overrides merged in, deep and in order (the
 * `platform` object of cdk.json, then `-c platform=...` from the command line), validated. A
 * partial override changes what it names and keeps every other setting. A bad value throws a
 * ConfigError that names it, which fails `cdk synth`.
 */
export function loadConfig(...overrides: (DeepPartial<PlatformConfig> | unknown)[]): PlatformConfig {
  return validateConfig(overrides.reduce((config, layer) => merge(config, layer), structuredClone(defaultConfig)));
}

/** API Gateway's default account-level burst: a usage plan cannot usefully burst above it. */
export const API_GATEWAY_MAX_BURST = 5_000;

/**
 * The backstop of a usage identifier: a plan's, or the one shared by all anonymous callers
 * (sized for `backstop.anonymousCallers` of them at once, so one caller's flood meets our per-IP
 * limiter, with its headers, long before API Gateway's bucket).
 */
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

/**
 * The config a function reads from its environment: without the deploy-time sections (`alarms`,
 * `protection`, `environment`), which no function uses, so that it stays far below Lambda's 4 KB environment
 * limit. validateConfig gives them their defaults back.
 */
export function runtimeConfig(config: PlatformConfig): RuntimeConfig {
  const { alarms: _alarms, protection: _protection, environment: _environment, ...runtime } = config;
  return runtime;
}

export function planOf(config: PlatformConfig, id: PlanId): PlanDefinition {
  return config.plans[id];
}
