import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { logger } from '../shared/powertools.js';
import type { OperationsNotifier } from './upgrade-requests.js';

/** Publishes to the operations topic (the alarm topic): its subscribers (e-mail, chat) read the JSON message. */
export class SnsOperationsNotifier implements OperationsNotifier {
  constructor(
    private readonly client: SNSClient,
    private readonly topicArn: string,
  ) {}

  async notify(subject: string, message: Readonly<Record<string, unknown>>): Promise<void> {
    await this.client.send(
      new PublishCommand({
        TopicArn: this.topicArn,
        Subject: subject.slice(0, 100), // SNS's maximum
        Message: JSON.stringify(message, null, 2),
      }),
    );
  }
}

/** Where no operations topic is configured: the request is listed by `plans requests` only, and the log says so. */
export const unpublishedOperations: OperationsNotifier = {
  notify(subject) {
    logger.warn('no operations topic configured: not published', { subject });
    return Promise.resolve();
  },
};
