import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageRecord, MessageResource } from '../../../lambda/messages/message.js';
import type { MessageOutcomeType } from '../../../contracts/messages.js';
import type { MessageRetries } from '../../../lambda/messages/ports.js';
import {
  type ProcessMessageDeps,
  processMessage,
  type QueuedMessage,
} from '../../../lambda/messages/process-message.js';
import { PermanentError, type ProcessMessage } from '../../../lambda/messages/processor.js';
import { logger } from '../../../lambda/shared/powertools.js';
import { AcceptedTally } from '../../../lambda/usage-history/accepted-tally.js';
import { ManualClock } from '../../support/clock.js';
import { FakeMessageStore } from '../../support/message-fakes.js';

const ID = 'msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W';
const CREATED = '2026-11-21T10:15:30.123Z';
const T1 = Date.UTC(2026, 10, 21, 10, 15, 31, 500);
const T1_ISO = '2026-11-21T10:15:31.500Z';

const record: MessageRecord = {
  id: ID,
  accountId: 'acct_1',
  keyId: 'key_1',
  message: 'Hello, world',
  status: 'queued',
  createdAt: CREATED,
  expiresAt: 1_797_848_130,
};

class RecordingRetries implements MessageRetries {
  readonly postponed: Array<[string, number]> = [];
  async postpone(receiptHandle: string, seconds: number): Promise<void> {
    this.postponed.push([receiptHandle, seconds]);
  }
}

class RecordingOutcomes {
  readonly told: Array<[MessageOutcomeType, MessageResource]> = [];
  failNext: Error | undefined;
  async notify(type: MessageOutcomeType, message: MessageResource): Promise<void> {
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw failure;
    this.told.push([type, message]);
  }
}

function setup(processor: ProcessMessage, stored: MessageRecord = record) {
  const messages = new FakeMessageStore();
  messages.records.set(stored.id, stored);
  const retries = new RecordingRetries();
  const outcomes = new RecordingOutcomes();
  const calls: Array<{ message: unknown; attempt: number }> = [];
  const deps: ProcessMessageDeps = {
    messages,
    clock: new ManualClock(T1),
    maxReceiveCount: 5,
    processor: async (message, context) => {
      calls.push({ message, attempt: context.attempt });
      return processor(message, context);
    },
    retries,
    backoff: { baseSeconds: 30, maxSeconds: 900 },
    outcomes,
  };
  return { messages, retries, outcomes, calls, deps };
}

const envelope = JSON.stringify({ v: 1, id: ID, accountId: 'acct_1', createdAt: CREATED });
const delivery = (receiveCount: number): QueuedMessage => ({
  body: envelope,
  messageIdAttribute: ID,
  receiveCount,
  receiptHandle: `handle-${receiveCount}`,
});

beforeEach(() => {
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
  vi.spyOn(logger, 'info').mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

describe('processMessage with the operator\'s processor', () => {
  it('gives the processor the message and the attempt, and keeps its JSON result on the record', async () => {
    const { messages, calls, outcomes, deps } = setup((m) => ({ length: m.message.length }));
    await processMessage(delivery(1), deps);
    expect(calls).toEqual([
      { message: { id: ID, accountId: 'acct_1', keyId: 'key_1', message: 'Hello, world', createdAt: CREATED }, attempt: 1 },
    ]);
    expect(messages.records.get(ID)).toEqual({
      ...record,
      status: 'processed',
      processedAt: T1_ISO,
      attempts: 1,
      result: { length: 12 },
    });
    expect(outcomes.told).toEqual([
      [
        'message.processed',
        { id: ID, message: 'Hello, world', status: 'processed', createdAt: CREATED, processedAt: T1_ISO, attempts: 1, result: { length: 12 } },
      ],
    ]);
  });

  it('fails twice then succeeds: each failure counted with its error and postponed by the backoff; attempts 3', async () => {
    let n = 0;
    const { messages, retries, calls, outcomes, deps } = setup(() => {
      n += 1;
      if (n < 3) throw new Error(`upstream 503 (Authorization: Bearer sk_live_abc123) try ${n}`);
      return 'ok';
    });
    await expect(processMessage(delivery(1), deps)).rejects.toThrow('try 1');
    expect(messages.records.get(ID)).toMatchObject({
      status: 'queued',
      attempts: 1,
      lastError: 'upstream 503 (Authorization: Bearer [redacted]) try 1',
    });
    await expect(processMessage(delivery(2), deps)).rejects.toThrow('try 2');
    await processMessage(delivery(3), deps);
    expect(calls.map((c) => c.attempt)).toEqual([1, 2, 3]);
    expect(retries.postponed).toEqual([
      ['handle-1', 30],
      ['handle-2', 60],
    ]);
    expect(messages.records.get(ID)).toMatchObject({ status: 'processed', attempts: 3, result: 'ok' });
    expect(outcomes.told.map(([type]) => type)).toEqual(['message.processed']);
  });

  it('a PermanentError fails the message at once: failed, lastError, no retry, told', async () => {
    const { messages, retries, outcomes, deps } = setup(() => {
      throw new PermanentError('the receiver refused it (422)');
    });
    await expect(processMessage(delivery(1), deps)).resolves.toBeUndefined();
    expect(messages.records.get(ID)).toEqual({
      ...record,
      status: 'failed',
      failedAt: T1_ISO,
      attempts: 1,
      lastError: 'the receiver refused it (422)',
    });
    expect(retries.postponed).toEqual([]);
    expect(outcomes.told).toEqual([['message.failed', expect.objectContaining({ status: 'failed', attempts: 1 })]]);
  });

  it('fails the attempt when the result is over 4 KB of JSON, saying so', async () => {
    const { messages, deps } = setup(() => ({ blob: 'x'.repeat(5000) }));
    await expect(processMessage(delivery(1), deps)).rejects.toThrow(/bytes of JSON; at most 4096 are kept/);
    expect(messages.records.get(ID)).toMatchObject({ status: 'queued', attempts: 1 });
    expect(messages.records.get(ID)?.lastError).toMatch(/^the processor's result is 50\d\d bytes of JSON/);
  });

  it('marks failed with the last error on the last receive, tells it, and still throws (the DLQ)', async () => {
    const { messages, outcomes, deps } = setup(() => {
      throw new Error('still down');
    });
    messages.records.set(ID, { ...record, attempts: 4 });
    await expect(processMessage(delivery(5), deps)).rejects.toThrow('still down');
    expect(messages.records.get(ID)).toMatchObject({ status: 'failed', attempts: 5, lastError: 'still down', failedAt: T1_ISO });
    expect(outcomes.told.map(([type]) => type)).toEqual(['message.failed']);
  });

  it('a redelivery of a final message runs nothing and tells the outcome again', async () => {
    const { calls, outcomes, messages, deps } = setup(() => 'done');
    await processMessage(delivery(1), deps);
    await processMessage(delivery(2), deps);
    expect(calls).toHaveLength(1);
    expect(messages.calls.markProcessed).toBe(1);
    expect(outcomes.told.map(([type]) => type)).toEqual(['message.processed', 'message.processed']);
  });

  it('a rejected notify fails the delivery without re-running the processor; the redelivery tells it', async () => {
    const { calls, outcomes, retries, messages, deps } = setup(() => 'done');
    outcomes.failNext = new Error('outbox unavailable');
    await expect(processMessage(delivery(1), deps)).rejects.toThrow('outbox unavailable');
    expect(messages.records.get(ID)?.status).toBe('processed');
    expect(retries.postponed).toHaveLength(1);
    await processMessage(delivery(2), deps);
    expect(calls).toHaveLength(1);
    expect(outcomes.told.map(([type]) => type)).toEqual(['message.processed']);
  });

  it('a notify that keeps failing to the last receive does not turn a processed record into failed', async () => {
    const { outcomes, messages, deps } = setup(() => 'done');
    messages.records.set(ID, { ...record, status: 'processed', processedAt: T1_ISO, attempts: 1 });
    outcomes.failNext = new Error('outbox unavailable');
    await expect(processMessage(delivery(5), deps)).rejects.toThrow('outbox unavailable');
    expect(messages.records.get(ID)?.status).toBe('processed');
    expect(messages.calls.markFailed).toBe(0);
  });

  it('runs a redriven failed message again (a failed record on a first receive), counting on from its attempts', async () => {
    const failed: MessageRecord = { ...record, status: 'failed', failedAt: CREATED, attempts: 5, lastError: 'down' };
    const { calls, messages, deps } = setup(() => 'recovered', failed);
    const accepted = new AcceptedTally();
    await processMessage(delivery(1), { ...deps, accepted });
    expect(calls.map((c) => c.attempt)).toEqual([6]);
    expect(messages.records.get(ID)).toMatchObject({ status: 'processed', attempts: 6, result: 'recovered' });
    // Counted when it failed, not again.
    expect(accepted.counts().size).toBe(0);
  });

  it('without outcomes (no webhooks) nothing is told and nothing fails', async () => {
    const { messages, deps } = setup(() => undefined);
    await processMessage(delivery(1), { ...deps, outcomes: undefined });
    expect(messages.records.get(ID)).toMatchObject({ status: 'processed', attempts: 1 });
    expect(messages.records.get(ID)).not.toHaveProperty('result');
  });
});
