import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config/index.js';
import { MessagesData } from '../constructs/messages/messages-data.js';
import { WebhooksData } from '../constructs/webhooks/webhooks-data.js';

export interface DataStackProps extends StackProps {
  readonly config: PlatformConfig;
}

/** Stateful: tables and queues (retained). Deployed first, changed rarely. */
export class DataStack extends Stack {
  readonly messages: MessagesData;
  readonly webhooks: WebhooksData;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    this.messages = new MessagesData(this, 'Messages', { config: props.config });
    this.webhooks = new WebhooksData(this, 'Webhooks');
  }
}
