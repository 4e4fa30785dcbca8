import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// A dependency outage is a 503 the client may retry, never a 500 or a half-accepted message.
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ worker: false });
});
afterAll(() => platform?.stop());

describe('DynamoDB unavailable', () => {
  it('answers 503 problem+json with Retry-After, for a cached key and for an unknown one', async () => {
    const key = platform.demoKeys.pro;
    expect((await send(platform, key, 'warm the authorizer cache')).status).toBe(202);
    await platform.stopDatabaseService();

    const cached = await send(platform, key, 'during the outage');
    expect(cached.status).toBe(503);
    expect(cached.headers.get('content-type')).toBe('application/problem+json');
    expect(cached.body.code).toBe('service_unavailable');
    expect(Number(cached.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const uncached = await send(platform, platform.demoKeys.business, 'during the outage');
    expect(uncached.status).toBe(503);
    expect(uncached.body.code).toBe('service_unavailable');
  });
});
