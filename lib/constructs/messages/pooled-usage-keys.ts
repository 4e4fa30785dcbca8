import { createHash } from 'node:crypto';
import { Token } from 'aws-cdk-lib';

/**
 * The value of the pooled internal API key of a usage identifier in a stack: SHA-256 hex of both,
 * the same on every synth. Not a secret: API Gateway takes API keys from the authorizer only, so
 * knowing it grants nothing; it only says which usage plan meters a request.
 */
export function pooledUsageKeyValue(stackName: string, identifier: string): string {
  // A token's text differs between synths: the value (and so the key) would change every deploy.
  if (Token.isUnresolved(stackName)) throw new Error('pooled usage key values need a stack name known at synth');
  return createHash('sha256').update(`messages-platform/pooled-usage-key/${stackName}/${identifier}`).digest('hex');
}
