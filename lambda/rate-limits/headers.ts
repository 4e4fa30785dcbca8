import type { LimiterState, WindowUsage } from './limiter-state.js';
import type { LimiterDecision } from './limiter-decision.js';

/** Rate-limit headers for every response, as docs/api-clients.md ("Behaviour") describes them. */
export function rateLimitHeaders(state: LimiterState): Record<string, string> {
  const policy = policyOf(state.minute, state.day);
  if (state.ban !== undefined) {
    const t = secondsTo(state.ban.untilMs, state.nowMs, 1);
    return {
      'X-RateLimit-Limit': String(bindingWindow(state).limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Math.ceil(state.ban.untilMs / 1000)),
      'RateLimit-Policy': `${policy}, "ban";q=0;w=${state.ban.durationSeconds}`,
      RateLimit: `"ban";r=0;t=${t}`,
    };
  }
  const window = state.blocking === undefined ? bindingWindow(state) : state[state.blocking];
  const remaining = remainingIn(window);
  return {
    'X-RateLimit-Limit': String(window.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(Math.ceil(window.resetMs / 1000)),
    'RateLimit-Policy': policy,
    RateLimit: `"${window.name}";r=${remaining};t=${secondsTo(window.resetMs, state.nowMs, 0)}`,
  };
}

/** Whole seconds until `targetMs`, rounded up as Retry-After is, with a floor (RateLimit's t may be 0). */
const secondsTo = (targetMs: number, nowMs: number, floor: number) =>
  Math.max(floor, Math.ceil((targetMs - nowMs) / 1000));

const policyOf = (minute: WindowUsage, day: WindowUsage) =>
  `"${minute.name}";q=${minute.limit};w=${minute.windowSeconds}, "${day.name}";q=${day.limit};w=${day.windowSeconds}`;

export function bindingWindow(state: LimiterState): WindowUsage {
  return remainingIn(state.day) < remainingIn(state.minute) ? state.day : state.minute;
}

const remainingIn = (w: WindowUsage) => Math.max(0, w.limit - w.used);

export function decisionHeaders(decision: LimiterDecision): Record<string, string> {
  return rateLimitHeaders(decision.state);
}
