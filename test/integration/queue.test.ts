import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbMessageStore } from '../../lambda/messages/dynamodb-message-store.js';
import { newMessageId } from '../../lambda/messages/send-message.js';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambda/shared/dynamodb.js';
import { LOCAL_AWS } from '../../local/emulators.js';
import {
  call,
  eventually,
  many,
  rateHeaders,
  send,
  startTestPlatform,
  type TestPlatform, freshKey } from '../support/platform.js';

// A 202 means queued: every accepted message is processed, or dead-lettered and shown failed.
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.stop());

describe('processing', () => {
  it('takes every accepted message to processed', async () => {
    const key = platform.demoKeys.pro;
    const accepted = await many(40, 10, (i) => send(platform, key, `work ${i}`));
    expect(accepted.every((a) => a.status === 202)).toBe(true);
    const ids = accepted.map((a) => a.body.id as string);
    await eventually(async () => {
      const states = await Promise.all(ids.map((id) => call(platform, `/messages/${id}`, { key })));
      return states.every((s) => s.body.status === 'processed') ? true : undefined;
    });
    const one = await call(platform, `/messages/${ids[0]}`, { key });
    expect(one.body.processedAt).toMatch(/Z$/);
  });
});

describe('dead-lettering', () => {
  it('moves a poison message to the DLQ after maxReceiveCount attempts and shows it failed', async () => {
    const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
    const sqs = new SQSClient({ ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
    // A record the way the API writes it, and an envelope the worker cannot understand.
    const id = newMessageId(platform.clock.now());
    await new DynamoDbMessageStore(documents, platform.tables.messages).create({
      id,
      accountId: platform.demoAccounts.pro.accountId,
      keyId: 'key_poison',
      message: 'poison',
      status: 'queued',
      createdAt: new Date(platform.clock.now()).toISOString(),
      expiresAt: Math.floor(platform.clock.now() / 1000) + 86_400,
    });
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: platform.queues.queueUrl,
        MessageBody: '{"v": 99, "garbage": true',
        MessageAttributes: { messageId: { DataType: 'String', StringValue: id } },
      }),
    );

    const failed = await eventually(async () => {
      const answer = await call(platform, `/messages/${id}`, { key: platform.demoKeys.pro });
      return answer.body.status === 'failed' ? answer : undefined;
    }, 30_000);
    expect(failed.body.failedAt).toMatch(/Z$/);
    await eventually(async () => {
      const attributes = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: platform.queues.deadLetterQueueUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      );
      return Number(attributes.Attributes?.ApproximateNumberOfMessages) === 1 ? true : undefined;
    }, 15_000);
    documents.destroy();
    sqs.destroy();
  });
});

describe('SQS unavailable', () => {
  it('answers 503 with Retry-After, refunds the budget and leaves no queued record', async () => {
    const key = await freshKey(platform, 'free', 'outage');
    const before = rateHeaders((await send(platform, key, 'before the outage')).headers);
    expect(before.remaining).toBe(59);

    await platform.stopQueueService();
    const answer = await send(platform, key, 'during the outage');
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('service_unavailable');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(rateHeaders(answer.headers).remaining).toBe(59);

    const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
    const stored = await documents.send(
      new ScanCommand({
        TableName: platform.tables.messages,
        FilterExpression: 'message = :m',
        ExpressionAttributeValues: { ':m': 'during the outage' },
      }),
    );
    expect(stored.Items).toEqual([]);
    // The refund is real: the next answer still reports 59 remaining (a GET does not spend).
    const read = await call(platform, '/messages/msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', { key });
    expect(rateHeaders(read.headers).remaining).toBe(59);
    documents.destroy();
  });
});
