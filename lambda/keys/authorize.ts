import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { PlanDefinition, PlanId, RateLimits } from '../../lib/config/index.js';
import { header } from '../messages/validation.js';
import type { Clock } from '../shared/clock.js';
import { logger } from '../shared/powertools.js';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.js';
import { type Caller, callerToContext } from './caller.js';
import type { ApiKeyRecord, KeyStore } from './key-store.js';

export interface LimitsConfig {
  readonly plans: Readonly<Record<PlanId, PlanDefinition>>;
  readonly anonymous: RateLimits;
}

/**
 * Resolves the usage identifier (an internal API Gateway key's value) of a caller: the key's own
 * internal key when it has one, else the pooled key of its plan (or of anonymous callers).
 */
export interface UsageIdentifiers {
  valueFor(target: { plan: PlanId | 'anonymous'; gatewayKeyId?: string }): Promise<string>;
}

export interface AuthorizeDeps {
  readonly keys: KeyStore;
  readonly usageIdentifiers: UsageIdentifiers;
  readonly limits: LimitsConfig;
  readonly clock: Clock;
  /** How long a key lookup is reused in memory; revocation reaches the authorizer within this. */
  readonly keyCacheSeconds: number;
}

const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * REQUEST authorizer. It always allows: callers without a valid key become "anonymous" so that the
 * handlers answer the 401 with the anonymous budget's rate-limit headers (design §1). The caller is
 * passed on as context, and `usageIdentifierKey` binds the request to its plan's usage plan.
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

  async function identify(event: APIGatewayRequestAuthorizerEvent): Promise<{ caller: Caller; gatewayKeyId?: string }> {
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
      ...(record.gatewayKeyId ? { gatewayKeyId: record.gatewayKeyId } : {}),
    };
  }

  return async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
    const { caller, gatewayKeyId } = await identify(event);
    logger.debug('caller identified', caller.kind === 'key' ? { keyId: caller.keyId } : { anonymous: caller.reason });
    const plan = caller.kind === 'key' ? caller.plan : 'anonymous';
    let usageIdentifierKey: string;
    try {
      usageIdentifierKey = await deps.usageIdentifiers.valueFor({ plan, ...(gatewayKeyId ? { gatewayKeyId } : {}) });
    } catch (error) {
      if (!gatewayKeyId) throw error;
      // The key's own internal key is gone (revoked within our cache TTL): meter it on the plan's
      // pooled key; the limiter refuses a revoked key with a 401.
      logger.warn('internal usage key not found; using the pooled key', { keyId: principalOf(caller), error: error as Error });
      usageIdentifierKey = await deps.usageIdentifiers.valueFor({ plan });
    }
    return {
      principalId: principalOf(caller),
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wildcardResource(event.methodArn) }],
      },
      context: callerToContext(caller),
      usageIdentifierKey,
    };
  };
}

const principalOf = (caller: Caller) => (caller.kind === 'key' ? caller.keyId : 'anonymous');

const anonymous = (reason: 'missing' | 'malformed' | 'invalid') => ({ caller: { kind: 'anonymous' as const, reason } });

/** arn:aws:execute-api:region:account:api/stage/METHOD/path → .../stage/*: one policy fits every route. */
function wildcardResource(methodArn: string): string {
  // The API id is part of the first segment: arn:aws:execute-api:region:account:apiId
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}
