import { DeleteMessageCommand, GetQueueAttributesCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { sqsEvent, sqsRecord } from './support/events.js';
import { BundleStage } from './support/stage.js';

// The delivery bundle as synthesized (AWS settings: https only, public addresses only), invoked
// with jobs received from fauxqs, against dynalite and a receiver on loopback, which the bundle
// must refuse at connect time: the attempt is recorded, the retry is enqueued, nothing reaches it.
let stage: BundleStage;
let receiver: WebhookReceiver;
let queueArn: string;
const ACCOUNT = 'acct_demo_pro';

beforeAll(async () => {
  stage = await BundleStage.start();
  receiver = await startWebhookReceiver();
  queueArn = (
    await stage.sqs.send(new GetQueueAttributesCommand({ QueueUrl: stage.platform.webhooks.queueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes?.QueueArn as string;
});
afterAll(async () => {
  await receiver?.stop();
  await stage?.stop();
});

/** What the event source does once the function answered without failures: the job leaves the queue. */
async function deleteJob(job: Message): Promise<void> {
  const { queueUrl } = stage.platform.webhooks;
  await stage.sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: job.ReceiptHandle }));
}

async function receiveJob(waitSeconds = 2): Promise<Message> {
  const { Messages = [] } = await stage.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: stage.platform.webhooks.queueUrl,
      MaxNumberOfMessages: 1,
      WaitTimeSeconds: waitSeconds,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  expect(Messages).toHaveLength(1);
  return Messages[0] as Message;
}

describe('delivery bundle', () => {
  it('refuses a loopback endpoint at connect time, records the attempt and schedules the retry', async () => {
    // Created through the local service, which allows loopback: only the bundle's AWS settings refuse it.
    const url = `https://127.0.0.1:${new URL(receiver.url).port}/hooks`;
    const { webhook } = await stage.platform.webhooks.service.create(ACCOUNT, { url });
    const sent = await stage.platform.webhooks.service.sendTest(ACCOUNT, webhook.id);

    const job = await receiveJob();
    const result = await stage.invoke<SQSBatchResponse>('delivery', sqsEvent(sqsRecord(job, queueArn, 'eu-west-1')));
    expect(result).toEqual({ batchItemFailures: [] });
    await deleteJob(job);
    expect(receiver.received).toHaveLength(0);

    const delivery = await stage.platform.webhooks.store.getDelivery(`webhook#${webhook.id}`, sent.eventId, webhook.id);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: [{ attempt: 1, error: expect.stringMatching(/^address_not_allowed/) }],
      nextAttemptAt: expect.any(String),
    });
    // The retry is due in 5 s: the job waits on the queue that long (DelaySeconds).
    const retryJob = await receiveJob(10);
    await deleteJob(retryJob);
    const retry = JSON.parse(retryJob.Body as string) as { eventId: string; attempt: number; retry: number };
    expect(retry).toMatchObject({ eventId: sent.eventId, attempt: 1, retry: 1 });
    const endpoint = await stage.platform.webhooks.store.getEndpoint(ACCOUNT, webhook.id);
    expect(endpoint?.failingSince).toEqual(expect.any(Number));
  });

  it('refuses an http endpoint without connecting', async () => {
    const { webhook } = await stage.platform.webhooks.service.create(ACCOUNT, { url: receiver.url });
    const sent = await stage.platform.webhooks.service.sendTest(ACCOUNT, webhook.id);
    const job = await receiveJob();
    await stage.invoke<SQSBatchResponse>('delivery', sqsEvent(sqsRecord(job, queueArn, 'eu-west-1')));
    await deleteJob(job);
    const delivery = await stage.platform.webhooks.store.getDelivery(`webhook#${webhook.id}`, sent.eventId, webhook.id);
    expect(delivery?.attempts[0]?.error).toBe('url_not_allowed: url must use https.');
    expect(receiver.received).toHaveLength(0);
  });
});
