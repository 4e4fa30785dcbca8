import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { MessagesData } from '../constructs/messages/messages-data.js';
import { WebhooksData } from '../constructs/webhooks/webhooks-data.js';
import type { PlatformStackProps } from './operations-stack.js';

/** Stateful: tables and queues (retained). Deployed first, changed rarely. */
export class DataStack extends Stack {
  readonly messages: MessagesData;
  readonly webhooks: WebhooksData;

  constructor(scope: Construct, id: string, props: PlatformStackProps) {
    super(scope, id, props);
    this.messages = new MessagesData(this, 'Messages', { config: props.config });
    this.webhooks = new WebhooksData(this, 'Webhooks');
  }
}
