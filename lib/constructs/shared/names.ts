import { createHash } from 'node:crypto';
import { Aws, Fn, type Stack, Token } from 'aws-cdk-lib';

/** The UUID in the stack's id: new on every creation of the stack, so names built on it never collide. */
export const stackCreationId = (): string => Fn.select(2, Fn.split('/', Aws.STACK_ID));

/**
 * `<stack name>-<role>-<uuid of the stack's id>`, at most `maxLength` characters (the UUID is never
 * cut): a retained, named resource re-created after `cdk destroy`, or in a second region, never collides.
 */
export function creationUniqueName(stack: Stack, role: string, maxLength: number): string {
  const readable = `${stack.stackName}-${role}`.replace(/[^A-Za-z0-9-_]/g, '');
  return `${readable.slice(0, maxLength - 37)}-${stackCreationId()}`;
}

/**
 * `<stack name>-<region>-<role>`, for names unique per account across regions (CloudFront,
 * CloudWatch dashboards); cut to `maxLength`, it ends with a hash of the whole name.
 */
export function accountUniqueName(stack: Stack, role: string, maxLength: number): string {
  const full = `${stack.stackName}-${stack.region}-${role}`;
  if (Token.isUnresolved(full) || full.length <= maxLength) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${full.slice(0, maxLength - 9)}-${hash}`;
}
