import { describe, expect, it } from 'vitest';
import { type Caller, callerFromContext, callerToContext } from '../../../lambda/keys/caller.js';

/** API Gateway hands authorizer context values to the integration as strings. */
const asApiGateway = (context: Record<string, string | number>) =>
  Object.fromEntries(Object.entries(context).map(([k, v]) => [k, String(v)]));

const keyCaller: Caller = {
  kind: 'key',
  keyId: 'key_1',
  accountId: 'acct_1',
  plan: 'enterprise',
  limits: { perMinute: 20_000, perDay: 5_000_000 },
  ban: { threshold: 30, durationSeconds: 900 },
};

describe('callerToContext', () => {
  it('flattens a key caller', () => {
    expect(callerToContext(keyCaller)).toEqual({
      principal: 'key',
      keyId: 'key_1',
      accountId: 'acct_1',
      plan: 'enterprise',
      perMinute: 20_000,
      perDay: 5_000_000,
      banThreshold: 30,
      banDurationSeconds: 900,
    });
  });

  it('flattens an anonymous caller', () => {
    expect(callerToContext({ kind: 'anonymous', reason: 'malformed' })).toEqual({
      principal: 'anonymous',
      reason: 'malformed',
    });
  });
});

describe('callerFromContext', () => {
  it('round-trips a key caller through the stringified context, numbers as numbers', () => {
    const back = callerFromContext(asApiGateway(callerToContext(keyCaller)));
    expect(back).toEqual(keyCaller);
    if (back.kind !== 'key') throw new Error('expected a key caller');
    expect(typeof back.limits.perMinute).toBe('number');
  });

  it('round-trips the raw (unstringified) context too', () => {
    expect(callerFromContext(callerToContext(keyCaller))).toEqual(keyCaller);
  });

  it.each(['missing', 'malformed', 'invalid'] as const)('round-trips an anonymous caller (%s)', (reason) => {
    const caller: Caller = { kind: 'anonymous', reason };
    expect(callerFromContext(asApiGateway(callerToContext(caller)))).toEqual(caller);
  });

  it.each([
    ['no context', undefined],
    ['a null context', null],
    ['an empty context', {}],
    ['an unknown reason', { principal: 'anonymous', reason: 'other' }],
    ['an unknown principal', { principal: 'admin', keyId: 'key_1' }],
  ])('treats %s as an anonymous caller without a key', (_what, context) => {
    expect(callerFromContext(context)).toEqual({ kind: 'anonymous', reason: 'missing' });
  });
});
