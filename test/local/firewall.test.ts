import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { FIREWALL_BLOCK_RESPONSE, WELL_FORMED_BEARER } from '../../contracts/firewall-rules.js';
import { LocalFirewall } from '../../local/firewall.js';

const FORGED = `Bearer sk_live_${'A'.repeat(36)}`;

function firewall(anonymousPerIpPerMinute = 3, perIpPerMinute = 5) {
  const clock = new ManualClock(Date.UTC(2026, 10, 24, 12, 0, 0));
  return { clock, firewall: new LocalFirewall({ anonymousPerIpPerMinute, perIpPerMinute }, clock) };
}

const verdicts = (fw: LocalFirewall, n: number, ip: string, authorization?: string) =>
  Array.from({ length: n }, () => fw.inspect(ip, authorization)?.rule ?? 'pass');

describe('LocalFirewall (the web ACL rate rules on the local front)', () => {
  it('passes the anonymous limit per IP, then blocks with the WAF response', () => {
    const { firewall: fw } = firewall();
    expect(verdicts(fw, 5, '127.0.0.1')).toEqual(['pass', 'pass', 'pass', 'AnonymousPerIp', 'AnonymousPerIp']);
    expect(fw.inspect('127.0.0.1', undefined)?.response).toBe(FIREWALL_BLOCK_RESPONSE);
    // Another address has its own count.
    expect(verdicts(fw, 1, '127.0.0.2')).toEqual(['pass']);
  });

  it('does not count well-formed keys as anonymous (any case of the scheme), but counts them per IP', () => {
    const { firewall: fw } = firewall();
    expect(verdicts(fw, 5, '127.0.0.1', FORGED)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass']);
    expect(verdicts(fw, 1, '127.0.0.1', FORGED.replace('Bearer', 'BEARER'))).toEqual(['PerIp']);
  });

  it('treats a malformed key as anonymous', () => {
    const { firewall: fw } = firewall();
    expect(verdicts(fw, 4, '127.0.0.1', `${FORGED}x`)).toEqual(['pass', 'pass', 'pass', 'AnonymousPerIp']);
    expect(WELL_FORMED_BEARER.test(`${FORGED}x`.toLowerCase())).toBe(false);
  });

  it('counts over the trailing 60 seconds: blocked requests keep counting, and an idle minute clears them', () => {
    const { firewall: fw, clock } = firewall();
    verdicts(fw, 3, '127.0.0.1');
    clock.advance(59_000);
    expect(verdicts(fw, 1, '127.0.0.1')).toEqual(['AnonymousPerIp']);
    clock.advance(1_000); // the first three fall out; the blocked one is still inside
    expect(verdicts(fw, 3, '127.0.0.1')).toEqual(['pass', 'pass', 'AnonymousPerIp']);
    clock.advance(60_000);
    expect(verdicts(fw, 1, '127.0.0.1')).toEqual(['pass']);
  });
});
