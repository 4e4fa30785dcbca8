import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { SigningSecret } from './model.js';

/** A new signing secret, `whsec_` + 32 random bytes in base64, as the Standard Webhooks libraries read it. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The secrets that sign at `nowMs`: the current one, and an old one during its overlap after a rotation. */
export function activeSecrets(secrets: readonly SigningSecret[], nowMs: number): string[] {
  return secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > nowMs).map((s) => s.secret);
}

/** The Standard Webhooks headers of one attempt, one signature per active secret (docs/webhooks.md, "What we send"). */
export function signedHeaders(
  eventId: string,
  payload: string,
  at: Date,
  secrets: readonly string[],
): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, payload)).join(' '),
  };
}
