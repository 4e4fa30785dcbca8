import { type LimiterState, secondsUntil, type WindowUsage } from './limiter-state.js';

/** Rate-limit headers for every response, as docs/api-clients.md ("Behaviour") describes them. */
export function rateLimitHeaders(state: LimiterState): Record<string, string> {
  const policy = policyOf(state.minute, state.day);
  if (state.ban !== undefined) {
    return {
      'X-RateLimit-Limit': String(bindingWindow(state).limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Math.ceil(state.ban.untilMs / 1000)),
      'RateLimit-Policy': `${policy}, "ban";q=0;w=${state.ban.durationSeconds}`,
      RateLimit: `"ban";r=0;t=${secondsUntil(state.ban.untilMs, state.nowMs)}`,
    };
  }
  const window = state.blocking === undefined ? bindingWindow(state) : state[state.blocking];
  const remaining = remainingIn(window);
  return {
    'X-RateLimit-Limit': String(window.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(Math.ceil(window.resetMs / 1000)),
    'RateLimit-Policy': policy,
    RateLimit: `"${window.name}";r=${remaining};t=${secondsUntil(window.resetMs, state.nowMs, 0)}`,
  };
}

const policyOf = (minute: WindowUsage, day: WindowUsage) =>
  `"${minute.name}";q=${minute.limit};w=${minute.windowSeconds}, "${day.name}";q=${day.limit};w=${day.windowSeconds}`;

export function bindingWindow(state: LimiterState): WindowUsage {
  return remainingIn(state.day) < remainingIn(state.minute) ? state.day : state.minute;
}

const remainingIn = (w: WindowUsage) => Math.max(0, w.limit - w.used);
