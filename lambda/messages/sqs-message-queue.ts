import { SendMessageCommand, type SqsClient } from '../shared/aws/sqs.js';
import type { MessageEnvelope } from './message.js';
import type { MessageQueue } from './ports.js';

export class SqsMessageQueue implements MessageQueue {
  constructor(
    private readonly client: SqsClient,
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
