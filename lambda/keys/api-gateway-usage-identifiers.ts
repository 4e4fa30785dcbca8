import type { PlanId } from '../../lib/config/index.js';
import { type ApiGatewayClient, GetApiKeyCommand } from '../shared/aws/api-gateway.js';
import type { UsageIdentifiers } from './authorize.js';

/**
 * Values of internal API Gateway keys: each customer key's own, and one pooled key per plan (and
 * for anonymous callers) from the stack. They only bind requests to a usage plan (the backstop);
 * customers never see them.
 */
export class ApiGatewayUsageIdentifiers implements UsageIdentifiers {
  private readonly values = new Map<string, Promise<string>>();

  constructor(
    private readonly client: ApiGatewayClient,
    private readonly keyIds: Readonly<Record<string, string>>,
  ) {}

  /** The key's own internal key, or its plan's pooled one; each value is read once per cold start. */
  valueFor(target: { plan: PlanId | 'anonymous'; gatewayKeyId?: string }): Promise<string> {
    const apiKey = target.gatewayKeyId ?? this.keyIds[target.plan];
    if (!apiKey) throw new Error(`no internal API key for usage plan ${target.plan}`);
    const cacheKey = apiKey;
    let value = this.values.get(cacheKey);
    if (!value) {
      value = this.client.send(new GetApiKeyCommand({ apiKey, includeValue: true })).then((r) => {
        if (!r.value) throw new Error(`API key ${apiKey} has no value`);
        return r.value;
      });
      value.catch(() => this.values.delete(cacheKey));
      if (this.values.size > 10_000) this.values.clear();
      this.values.set(cacheKey, value);
    }
    return value;
  }
}
