import { createHash } from 'node:crypto';
import { Aws, Fn, type Stack, Token } from 'aws-cdk-lib';

/**
 * The UUID part of the stack's id (`arn:…:stack/<name>/<uuid>`): new with every creation of the
 * stack, in every region and account. A retained resource with a required name ends with it, so a
 * re-create after `cdk destroy` (the old one retained under the old name) or the same prefix in a
 * second region never collides.
 */
export function stackCreationId(): string {
  return Fn.select(2, Fn.split('/', Aws.STACK_ID));
}

/**
 * `<readable>-<stack creation id>`, at most `maxLength` characters: the readable part (the stack
 * name and a role) is cut to fit, the 36-character UUID never is.
 */
export function creationUniqueName(stack: Stack, role: string, maxLength: number): string {
  const readable = `${stack.stackName}-${role}`.replace(/[^A-Za-z0-9-_]/g, '');
  return `${readable.slice(0, maxLength - 37)}-${stackCreationId()}`;
}

/**
 * `<stack name>-<region>-<role>`, for names AWS requires to be unique per account across regions
 * (CloudFront, CloudWatch dashboards): the stack name alone repeats when one prefix is deployed
 * to two regions. Longer than `maxLength`, it is cut and ends with a hash of the whole name, so
 * two long prefixes that share their start still differ.
 */
export function accountUniqueName(stack: Stack, role: string, maxLength: number): string {
  const full = `${stack.stackName}-${stack.region}-${role}`;
  if (Token.isUnresolved(full) || full.length <= maxLength) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${full.slice(0, maxLength - 9)}-${hash}`;
}
