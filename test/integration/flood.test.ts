import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config/index.js';
import { FIREWALL_BLOCK_RESPONSE } from '../../contracts/firewall-rules.js';
import { many, minuteStart, rateHeaders, send, startTestPlatform, type TestPlatform, freshKey } from '../support/platform.js';

// Production issue: flood protection. The web ACL's rate rules (contracts/firewall-rules.ts)
// run on the local front as WAF runs in front of API Gateway. Bounded: 650 requests on loopback.
const ANONYMOUS_PER_IP = 100;
const FLOOD = 600;
const VALID = 50;

let platform: TestPlatform;

beforeAll(async () => {
  const config = loadConfig({
    plans: { enterprise: { limits: { perMinute: 150, perDay: 400 } } },
    protection: { waf: { anonymousPerIpPerMinute: ANONYMOUS_PER_IP, perIpPerMinute: 1_000 } },
  });
  platform = await startTestPlatform({ worker: false, config });
});
afterAll(() => platform?.stop());

/** One anonymous POST, outside the OpenAPI check: a firewall answer is WAF's, not the API's. */
async function anonymous(i: number): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const res = await fetch(`${platform.baseUrl}/messages`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer guess-${i}` },
    body: JSON.stringify({ message: 'flood' }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const byFirewall = (a: { headers: Headers }) => a.headers.get('content-type') === FIREWALL_BLOCK_RESPONSE.contentType;

describe('an anonymous flood from one address', () => {
  it('is refused by the firewall past its per-IP limit while a valid key keeps getting 202', async () => {
    platform.clock.set(minuteStart());
    const key = await freshKey(platform, 'pro', 'flood bystander');
    const [flood, valid] = await Promise.all([
      many(FLOOD, 16, (i) => anonymous(i)),
      many(VALID, 1, (i) => send(platform, key, `still here #${i}`)),
    ]);

    expect(valid.map((a) => a.status)).toEqual(Array.from({ length: VALID }, () => 202));

    // The first ANONYMOUS_PER_IP reach the API: our limiter answers them (401 within the anonymous
    // budget, then 429), with rate-limit headers. Every later one stops at the firewall.
    const reachedApi = flood.filter((a) => !byFirewall(a));
    const blocked = flood.filter(byFirewall);
    expect(reachedApi).toHaveLength(ANONYMOUS_PER_IP);
    expect(blocked).toHaveLength(FLOOD - ANONYMOUS_PER_IP);
    const anonymousBudget = platform.config.anonymous.perMinute;
    expect(reachedApi.filter((a) => a.status === 401)).toHaveLength(anonymousBudget);
    expect(reachedApi.filter((a) => a.status === 429)).toHaveLength(ANONYMOUS_PER_IP - anonymousBudget);
    for (const a of reachedApi) expect(rateHeaders(a.headers).limit).toBe(anonymousBudget);

    for (const a of blocked) {
      expect(a.status).toBe(429);
      expect(a.headers.get('retry-after')).toBe('60');
      expect(a.body).toMatchObject({ status: 429, code: 'rate_limited', title: 'Too Many Requests' });
      // Never reached API Gateway's handlers: no request id of theirs.
      expect(a.headers.get('x-request-id')).toBeNull();
    }
  });

  it('is let through again once its trailing minute has passed', async () => {
    platform.clock.advance(61_000);
    const answer = await anonymous(0);
    expect(byFirewall(answer)).toBe(false);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: 'invalid_api_key' });
  });
});
