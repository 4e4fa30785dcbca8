import type { LookupFunction } from 'node:net';

/** Where deliveries may go: docs/webhooks.md, "Where deliveries may go". */
export interface DeliveryNetworkPolicy {
  readonly allowHttp: boolean;
  readonly allowedAddresses: readonly string[];
  /** The resolver; tests give one that answers a private address. @default node:dns lookup */
  readonly lookup?: LookupFunction;
}

export const AWS_DELIVERY_POLICY: DeliveryNetworkPolicy = { allowHttp: false, allowedAddresses: [] };

export const LOCAL_DELIVERY_POLICY: DeliveryNetworkPolicy = {
  allowHttp: true,
  allowedAddresses: ['127.0.0.1', '::1'],
};

const MAX_URL_LENGTH = 2048;

/** Why a URL cannot be an endpoint under `policy`, or undefined when it can. */
export function urlProblem(value: unknown, policy: DeliveryNetworkPolicy): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return 'url is required.';
  if (value.length > MAX_URL_LENGTH) return `url must be at most ${MAX_URL_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute URL.';
  }
  const schemes = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return policy.allowHttp ? 'url must use https or http.' : 'url must use https.';
  if (url.username || url.password) return 'url must not carry credentials.';
  if (url.hash) return 'url must not have a fragment.';
  return undefined;
}
