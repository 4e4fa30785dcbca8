import type { LimiterDecision, LimiterState, WindowUsage } from './rate-limiter.js';

/**
 * Rate-limit headers for every response. The X-RateLimit-* trio describes the binding window:
 * the one with the fewest requests remaining (ties go to the minute). While banned, Remaining is 0
 * and Reset is the end of the ban. The IETF draft RateLimit/RateLimit-Policy headers come too.
 */
export function rateLimitHeaders(state: LimiterState): Record<string, string> {
  const nowSec = state.nowMs / 1000;
  const policy = policyOf(state.minute, state.day);
  const binding = bindingWindow(state);

  if (state.bannedUntilMs !== undefined) {
    const resetSec = Math.ceil(state.bannedUntilMs / 1000);
    return {
      'X-RateLimit-Limit': String(binding.limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(resetSec),
      'RateLimit-Policy': policy,
      RateLimit: `"${binding.name}";r=0;t=${Math.max(0, Math.ceil(resetSec - nowSec))}`,
    };
  }
  const remaining = remainingIn(binding);
  const resetSec = Math.ceil(binding.resetMs / 1000);
  return {
    'X-RateLimit-Limit': String(binding.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(resetSec),
    'RateLimit-Policy': policy,
    RateLimit: `"${binding.name}";r=${remaining};t=${Math.max(0, Math.ceil(resetSec - nowSec))}`,
  };
}

/** The last RateLimit-Policy made: a key's limits rarely change between its requests. */
let lastPolicy = { minute: NaN, day: NaN, minuteSeconds: NaN, daySeconds: NaN, names: '', text: '' };

function policyOf(minute: WindowUsage, day: WindowUsage): string {
  const p = lastPolicy;
  const names = minute.name + day.name;
  if (
    p.names !== names ||
    p.minute !== minute.limit ||
    p.day !== day.limit ||
    p.minuteSeconds !== minute.windowSeconds ||
    p.daySeconds !== day.windowSeconds
  ) {
    lastPolicy = {
      minute: minute.limit,
      day: day.limit,
      minuteSeconds: minute.windowSeconds,
      daySeconds: day.windowSeconds,
      names,
      text: `"${minute.name}";q=${minute.limit};w=${minute.windowSeconds}, "${day.name}";q=${day.limit};w=${day.windowSeconds}`,
    };
  }
  return lastPolicy.text;
}

export function bindingWindow(state: LimiterState): WindowUsage {
  return remainingIn(state.day) < remainingIn(state.minute) ? state.day : state.minute;
}

const remainingIn = (w: WindowUsage) => Math.max(0, w.limit - w.used);

export function decisionHeaders(decision: LimiterDecision): Record<string, string> {
  return rateLimitHeaders(decision.state);
}
