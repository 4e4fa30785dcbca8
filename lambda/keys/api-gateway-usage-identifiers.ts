import { type APIGatewayClient, GetApiKeyCommand } from '@aws-sdk/client-api-gateway';
import type { PlanId } from '../../lib/config/index.js';
import type { UsageIdentifiers } from './authorize.js';

/**
 * Internal API Gateway keys, one per usage plan, read once per cold start. They only bind
 * requests to a usage plan (the backstop); customers never see them.
 */
export class ApiGatewayUsageIdentifiers implements UsageIdentifiers {
  private readonly values = new Map<string, Promise<string>>();

  constructor(
    private readonly client: APIGatewayClient,
    private readonly keyIds: Readonly<Record<string, string>>,
  ) {}

  valueFor(usagePlan: PlanId | 'anonymous'): Promise<string> {
    let value = this.values.get(usagePlan);
    if (!value) {
      const apiKey = this.keyIds[usagePlan];
      if (!apiKey) throw new Error(`no internal API key for usage plan ${usagePlan}`);
      value = this.client.send(new GetApiKeyCommand({ apiKey, includeValue: true })).then((r) => {
        if (!r.value) throw new Error(`API key ${apiKey} has no value`);
        return r.value;
      });
      value.catch(() => this.values.delete(usagePlan));
      this.values.set(usagePlan, value);
    }
    return value;
  }
}
