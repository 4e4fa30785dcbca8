import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { PLAN_IDS, type PlanDefinition, type PlanId, type RateLimits } from '../../contracts/plans.js';
import { header } from '../shared/http-headers.js';
import type { Clock } from '../shared/clock.js';
import { logger } from '../shared/powertools.js';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.js';
import { type Caller, callerToContext } from './caller.js';
import type { ApiKeyRecord, KeyStore } from './key-store.js';

export interface LimitsConfig {
  readonly plans: Readonly<Record<PlanId, PlanDefinition>>;
  readonly anonymous: RateLimits;
}

/** The stack's pooled internal keys: one per plan, plus anonymous callers. */
export const POOLED_USAGE_KEY_NAMES = [...PLAN_IDS, 'anonymous'] as const;

/** The values of the pooled internal keys (the authorizer's environment): for callers without a key of their own. */
export type PooledUsageKeys = Readonly<Record<(typeof POOLED_USAGE_KEY_NAMES)[number], string>>;

/** Checks the pooled keys the environment gives, or throws naming what is missing. */
export function parsePooledUsageKeys(raw: unknown): PooledUsageKeys {
  const given = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const bad = POOLED_USAGE_KEY_NAMES.filter((name) => typeof given[name] !== 'string' || given[name] === '');
  if (bad.length > 0) throw new Error(`pooled usage keys: no value for ${bad.join(', ')}`);
  return Object.fromEntries(POOLED_USAGE_KEY_NAMES.map((name) => [name, given[name] as string])) as PooledUsageKeys;
}

export interface AuthorizeDeps {
  readonly keys: KeyStore;
  readonly pooledUsageKeys: PooledUsageKeys;
  readonly limits: LimitsConfig;
  readonly clock: Clock;
  /** How long a key lookup is reused in memory; revocation reaches the authorizer within this. */
  readonly keyCacheSeconds: number;
}

const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * REQUEST authorizer. It always allows: callers without a valid key become "anonymous", so the
 * handlers answer the 401 with rate-limit headers (docs/api-clients.md, "Behaviour").
 * `usageIdentifierKey` binds the request to its usage plan.
 */
export function createAuthorizer(deps: AuthorizeDeps) {
  const cache = new Map<string, { record: ApiKeyRecord | undefined; expiresMs: number }>();

  async function lookup(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const now = deps.clock.now();
    const hit = cache.get(keyHash);
    if (hit && hit.expiresMs > now) return hit.record;
    const record = await deps.keys.findByHash(keyHash);
    if (deps.keyCacheSeconds > 0) {
      if (cache.size > 10_000) cache.clear();
      cache.set(keyHash, { record, expiresMs: now + deps.keyCacheSeconds * 1000 });
    }
    return record;
  }

  async function identify(
    event: APIGatewayRequestAuthorizerEvent,
  ): Promise<{ caller: Caller; usageIdentifierKey: string }> {
    const authorization = header(event.headers ?? {}, 'authorization');
    if (authorization === undefined || authorization.trim() === '') return anonymous('missing');
    const token = BEARER.exec(authorization)?.[1];
    if (!token) return anonymous('malformed');
    if (!isWellFormedApiKey(token)) return anonymous('invalid');
    const record = await lookup(hashApiKey(token));
    if (record?.status !== 'active') return anonymous('invalid');
    const plan = deps.limits.plans[record.plan];
    return {
      caller: {
        kind: 'key',
        keyId: record.keyId,
        accountId: record.accountId,
        plan: record.plan,
        limits: record.limits ?? plan.limits,
        ban: plan.ban,
      },
      // One read of the record gives everything: its account's internal key's value, or its plan's pool.
      usageIdentifierKey: record.gatewayKeyValue ?? deps.pooledUsageKeys[record.plan],
    };
  }

  const anonymous = (reason: 'missing' | 'malformed' | 'invalid') => ({
    caller: { kind: 'anonymous' as const, reason },
    usageIdentifierKey: deps.pooledUsageKeys.anonymous,
  });

  return async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
    const { caller, usageIdentifierKey } = await identify(event);
    logger.debug('caller identified', caller.kind === 'key' ? { keyId: caller.keyId } : { anonymous: caller.reason });
    return {
      principalId: caller.kind === 'key' ? caller.keyId : 'anonymous',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wildcardResource(event.methodArn) }],
      },
      context: callerToContext(caller),
      usageIdentifierKey,
    };
  };
}

/** arn:aws:execute-api:region:account:apiId/stage/METHOD/path → …/stage/*: one policy fits every route. */
function wildcardResource(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}
