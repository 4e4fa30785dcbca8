import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageEnvelope } from './message.js';
import type { MessageQueue } from './ports.js';

export class SqsMessageQueue implements MessageQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(envelope: MessageEnvelope): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(envelope),
        MessageAttributes: { messageId: { DataType: 'String', StringValue: envelope.id } },
      }),
    );
  }
}
