import type { LimiterDecision, LimiterState, WindowUsage } from './rate-limiter.js';

/**
 * Rate-limit headers for every response. The X-RateLimit-* trio describes the binding window:
 * the one with the fewest requests remaining (ties go to the minute). While banned, Remaining is 0
 * and Reset is the end of the ban. The IETF draft RateLimit/RateLimit-Policy headers come too.
 */
export function rateLimitHeaders(state: LimiterState): Record<string, string> {
  const nowSec = state.nowMs / 1000;
  const policy = [state.minute, state.day].map((w) => `"${w.name}";q=${w.limit};w=${w.windowSeconds}`).join(', ');
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

export function bindingWindow(state: LimiterState): WindowUsage {
  return remainingIn(state.day) < remainingIn(state.minute) ? state.day : state.minute;
}

const remainingIn = (w: WindowUsage) => Math.max(0, w.limit - w.used);

export function decisionHeaders(decision: LimiterDecision): Record<string, string> {
  return rateLimitHeaders(decision.state);
}
