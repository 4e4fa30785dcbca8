import { createHash } from 'node:crypto';
import { Token } from 'aws-cdk-lib';

/**
 * The value of the pooled internal API key of a usage identifier (a plan, or "anonymous") in a
 * stack: SHA-256 (hex: 64 alphanumeric characters, within API Gateway's 20 to 128) of the stack
 * name and the identifier.
 *
 * Not a secret: the REST API takes API keys from the authorizer only (`apiKeySourceType:
 * AUTHORIZER`), so API Gateway never accepts one from a client, and knowing it grants nothing; it
 * only says which usage plan (the backstop) meters a request. Set at synth so that the authorizer
 * gets it from its environment instead of asking API Gateway (GetApiKey) on the request path; the
 * same inputs give the same value on every synth, since a changed `Value` replaces the key. Stack
 * names are unique per account and region, and so are these values.
 */
export function pooledUsageKeyValue(stackName: string, identifier: string): string {
  // A token's text differs between synths: the value (and so the key) would change every deploy.
  if (Token.isUnresolved(stackName)) throw new Error('pooled usage key values need a stack name known at synth');
  return createHash('sha256').update(`messages-platform/pooled-usage-key/${stackName}/${identifier}`).digest('hex');
}
