import { Aws, Fn, type Stack } from 'aws-cdk-lib';

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
