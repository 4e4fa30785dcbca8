/*
 * The AWS WAF rules in front of the Messages API stage, as plain data, so that the construct
 * (lib/constructs/messages/api-firewall.ts) and the local front (local/firewall.ts) enforce the same rules.
 *
 * Why these: a flood should stop before it costs a Lambda invocation, and must not reach the
 * account's Lambda concurrency that the worker, the domain flow and the control API share.
 *   - AnonymousPerIp: requests without a well-formed `Bearer sk_live_…` key (anonymous callers,
 *     key guessing) per client IP, past `protection.waf.anonymousPerIpPerMinute`. Our own limiter
 *     already answers them 401/429 with headers up to `anonymous.perMinute`; this rule sits well
 *     above that, so it only ever meets floods.
 *   - PerIp: every request of one IP past `protection.waf.perIpPerMinute`, keys included, sized
 *     above any plan's per-minute budget (a customer's servers send from a few addresses).
 *   - AWS managed rule groups: the Amazon IP reputation list (sources of bots and attacks), and
 *     known bad inputs (exploit patterns such as Log4Shell in headers and URI). The body rule of
 *     known bad inputs only counts: message bodies are customer text and may quote anything. The
 *     core rule set is left out on purpose: its body size (8 KB) and XSS/SQLi body rules would
 *     refuse legitimate messages (bodies up to 256 KiB of arbitrary text).
 */
import { API_KEY_PREFIX } from './api-keys.js';
import { PROBLEM_TYPE_BASE } from './gateway-responses.js';
import type { PlatformConfig } from './plans.js';

/** Rate-based rules count over this trailing window (WAF allows 60, 120, 300 or 600 seconds). */
export const FIREWALL_WINDOW_SECONDS = 60;

/**
 * A well-formed key in the Authorization header, lower-cased first (WAF text transformation
 * LOWERCASE; our authorizer takes the scheme case-insensitively): `bearer sk_live_` + 36 base62.
 * Well-formed is not valid: a forged key passes this pattern, then meets the PerIp rule and our
 * per-IP anonymous budget (the authorizer rejects it on its checksum without a lookup).
 */
export const WELL_FORMED_BEARER = new RegExp(`^bearer ${API_KEY_PREFIX.toLowerCase()}[0-9a-z]{36}$`);

export interface FirewallRateRule {
  readonly name: 'AnonymousPerIp' | 'PerIp';
  readonly priority: number;
  /** Only requests without a well-formed key count (scope-down), or every request. */
  readonly scope: 'withoutWellFormedKey' | 'all';
}

export const FIREWALL_RATE_RULES: readonly FirewallRateRule[] = [
  { name: 'AnonymousPerIp', priority: 0, scope: 'withoutWellFormedKey' },
  { name: 'PerIp', priority: 1, scope: 'all' },
];

/** AWS managed rule groups, evaluated after the rate rules, with rules set to count instead of block. */
export const FIREWALL_MANAGED_GROUPS = [
  { name: 'AWSManagedRulesAmazonIpReputationList', priority: 2, countOnly: [] as string[] },
  { name: 'AWSManagedRulesKnownBadInputsRuleSet', priority: 3, countOnly: ['Log4JRCE_BODY'] },
] as const;

/**
 * What a rate rule answers: 429 with Retry-After, like our own limiter. WAF sends the body with
 * `Content-Type: application/json` (it sets no other content type for JSON bodies).
 */
export const FIREWALL_BLOCK_RESPONSE = {
  statusCode: 429,
  headers: { 'Retry-After': String(FIREWALL_WINDOW_SECONDS) },
  contentType: 'application/json',
  body: JSON.stringify({
    type: `${PROBLEM_TYPE_BASE}rate_limited`,
    title: 'Too Many Requests',
    status: 429,
    detail: `Too many requests from this address. Send a valid API key, and retry after ${FIREWALL_WINDOW_SECONDS} seconds.`,
    code: 'rate_limited',
  }),
} as const;

/** The per-minute limit of a rate rule, from the config. */
export function firewallLimit(rule: FirewallRateRule, waf: PlatformConfig['protection']['waf']): number {
  return rule.scope === 'all' ? waf.perIpPerMinute : waf.anonymousPerIpPerMinute;
}
