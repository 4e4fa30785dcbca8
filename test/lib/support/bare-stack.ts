import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { loadConfig, type PlatformConfig } from '../../../lib/config/index.js';
import { MessagesData } from '../../../lib/constructs/messages/messages-data.js';
import { cdkJsonContext, SKIP_BUNDLING } from './cdk-app.js';

/**
 * A bare stack (no platform stacks around it, no bundling) in which one part of a construct is
 * created and asserted on its own.
 */
export function bareStack(id = 'Bare'): { stack: Stack; config: PlatformConfig } {
  const config = loadConfig();
  const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
  const stack = new Stack(app, id, { env: { account: '123456789012', region: config.platform.region } });
  return { stack, config };
}

/** A bare stack with the Messages API's tables and queues (MessagesData) in it. */
export function bareMessagesStack(id = 'Bare'): { stack: Stack; config: PlatformConfig; data: MessagesData } {
  const { stack, config } = bareStack(id);
  return { stack, config, data: new MessagesData(stack, 'Data', { config }) };
}

/** The logical id of a construct's CloudFormation resource. */
export function logicalIdOf(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnResource);
}
