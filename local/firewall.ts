import type { PlatformConfig } from '../lib/config/index.js';
import {
  FIREWALL_BLOCK_RESPONSE,
  FIREWALL_RATE_RULES,
  FIREWALL_WINDOW_SECONDS,
  type FirewallRateRule,
  firewallLimit,
  WELL_FORMED_BEARER,
} from '../contracts/firewall-rules.js';
import type { Clock } from '../lambda/shared/clock.js';

/** What the firewall answers instead of the API, or undefined to let the request through. */
type FirewallVerdict = { readonly rule: FirewallRateRule['name']; readonly response: typeof FIREWALL_BLOCK_RESPONSE } | undefined;

/**
 * The web ACL's rate rules (contracts/firewall-rules.ts) per client IP, blocked requests counted as in WAF.
 * WAF's managed rule groups have no local equivalent: their lists are AWS's.
 */
export class LocalFirewall {
  /** `<rule>|<ip>` → requests per second, by epoch second, within the window. */
  private readonly counts = new Map<string, Map<number, number>>();

  constructor(
    private readonly config: PlatformConfig['protection']['waf'],
    private readonly clock: Clock,
  ) {}

  inspect(sourceIp: string, authorization: string | undefined): FirewallVerdict {
    const second = Math.floor(this.clock.now() / 1000);
    const wellFormed = authorization !== undefined && WELL_FORMED_BEARER.test(authorization.toLowerCase());
    let verdict: FirewallVerdict;
    for (const rule of FIREWALL_RATE_RULES) {
      if (rule.scope === 'withoutWellFormedKey' && wellFormed) continue;
      const seen = this.count(`${rule.name}|${sourceIp}`, second);
      if (!verdict && seen > firewallLimit(rule, this.config)) {
        verdict = { rule: rule.name, response: FIREWALL_BLOCK_RESPONSE };
      }
    }
    return verdict;
  }

  /** Adds this request and returns the requests of the trailing window, this one included. */
  private count(key: string, second: number): number {
    let buckets = this.counts.get(key);
    if (!buckets) this.counts.set(key, (buckets = new Map()));
    buckets.set(second, (buckets.get(second) ?? 0) + 1);
    let total = 0;
    for (const [at, n] of buckets) {
      if (at <= second - FIREWALL_WINDOW_SECONDS) buckets.delete(at);
      else total += n;
    }
    return total;
  }
}
