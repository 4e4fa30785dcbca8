import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageRecord } from '../../../lambda/messages/message.js';
import {
  PoisonMessageError,
  type ProcessMessageDeps,
  processMessage,
  type QueuedMessage,
} from '../../../lambda/messages/process-message.js';
import { ManualClock } from '../../support/clock.js';
import { logger } from '../../../lambda/shared/powertools.js';
import { FakeMessageStore } from '../../support/message-fakes.js';
import { AcceptedTally } from '../../../lambda/usage-history/accepted-tally.js';

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

function setup(stored: MessageRecord | null = record) {
  const messages = new FakeMessageStore();
  if (stored) messages.records.set(stored.id, stored);
  const clock = new ManualClock(T1);
  const deps: ProcessMessageDeps = { messages, clock, maxReceiveCount: 5 };
  return { messages, clock, deps };
}

const envelopeBody = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({ v: 1, id: ID, accountId: 'acct_1', createdAt: CREATED, ...overrides });

const delivery = (receiveCount: number, body = envelopeBody()): QueuedMessage => ({
  body,
  messageIdAttribute: ID,
  receiveCount,
});

beforeEach(() => {
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
  vi.spyOn(logger, 'info').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('processMessage', () => {
  it('takes a queued record to processed, stamped with the clock', async () => {
    const { messages, deps } = setup();
    await processMessage(delivery(1), deps);
    expect(messages.records.get(ID)).toEqual({ ...record, status: 'processed', processedAt: T1_ISO, attempts: 1 });
    expect(messages.calls.markProcessed).toBe(1);
    expect(messages.calls.markFailed).toBe(0);
  });

  it('ignores a duplicate delivery of a processed message', async () => {
    const { messages, clock, deps } = setup();
    await processMessage(delivery(1), deps);
    clock.advance(60_000);
    await expect(processMessage(delivery(2), deps)).resolves.toBeUndefined();
    expect(messages.records.get(ID)).toEqual({ ...record, status: 'processed', processedAt: T1_ISO, attempts: 1 });
    expect(messages.calls.markProcessed).toBe(1);
  });

  it('processes a failed record on a redrive (failed → processed)', async () => {
    const failed: MessageRecord = { ...record, status: 'failed', failedAt: '2026-11-21T10:20:00.000Z' };
    const { messages, deps } = setup(failed);
    await processMessage(delivery(1), deps);
    expect(messages.records.get(ID)).toMatchObject({ status: 'processed', processedAt: T1_ISO });
  });
});

describe('processMessage: poison envelopes', () => {
  it.each([
    ['not JSON', 'hello'],
    ['a JSON array', '[]'],
    ['an unknown version', envelopeBody({ v: 2 })],
    ['an id that is not a message id', envelopeBody({ id: 'msg_short' })],
    ['an id in lower case', envelopeBody({ id: ID.toLowerCase() })],
    ['no account', envelopeBody({ accountId: '' })],
    ['no createdAt', JSON.stringify({ v: 1, id: ID, accountId: 'acct_1' })],
  ])('%s: throws PoisonMessageError before the last receive and leaves the record queued', async (_what, body) => {
    const { messages, deps } = setup();
    await expect(processMessage(delivery(4, body), deps)).rejects.toBeInstanceOf(PoisonMessageError);
    expect(messages.records.get(ID)?.status).toBe('queued');
    expect(messages.calls.markProcessed + messages.calls.markFailed).toBe(0);
  });

  it('marks the record failed on the last receive (receiveCount = maxReceiveCount) and still throws, so SQS dead-letters it', async () => {
    const { messages, deps } = setup();
    await expect(processMessage(delivery(5, 'hello'), deps)).rejects.toBeInstanceOf(PoisonMessageError);
    expect(messages.records.get(ID)).toEqual({
      ...record,
      status: 'failed',
      failedAt: T1_ISO,
      lastError: 'the queued envelope is not one this worker understands',
    });
  });

  it('marks it failed past the last receive too (receiveCount above maxReceiveCount)', async () => {
    const { messages, deps } = setup();
    await expect(processMessage(delivery(7, 'hello'), deps)).rejects.toThrow(PoisonMessageError);
    expect(messages.records.get(ID)?.status).toBe('failed');
  });

  it('cannot mark anything failed without the messageId attribute, and still throws', async () => {
    const { messages, deps } = setup();
    await expect(
      processMessage({ body: 'hello', messageIdAttribute: undefined, receiveCount: 5 }, deps),
    ).rejects.toBeInstanceOf(PoisonMessageError);
    expect(messages.calls.markFailed).toBe(0);
    expect(messages.records.get(ID)?.status).toBe('queued');
  });

  it('marks a record failed when the store keeps failing until the last receive', async () => {
    const { messages, deps } = setup();
    const outage = new Error('throttled');
    vi.spyOn(messages, 'markProcessed').mockRejectedValue(outage);
    await expect(processMessage(delivery(4), deps)).rejects.toBe(outage);
    expect(messages.records.get(ID)?.status).toBe('queued');
    await expect(processMessage(delivery(5), deps)).rejects.toBe(outage);
    expect(messages.records.get(ID)).toMatchObject({ status: 'failed', failedAt: T1_ISO });
  });

  it('does not turn a processed record into failed when the last receive fails afterwards', async () => {
    const processed: MessageRecord = { ...record, status: 'processed', processedAt: CREATED };
    const { messages, deps } = setup(processed);
    await expect(processMessage(delivery(5, 'hello'), deps)).rejects.toBeInstanceOf(PoisonMessageError);
    expect(messages.records.get(ID)).toEqual(processed);
  });
});

describe('processMessage: envelope without a record', () => {
  it.each([1, 2])('throws on receive %i so that SQS redelivers it (the record write may be in flight)', async (n) => {
    const { messages, deps } = setup(null);
    await expect(processMessage(delivery(n), deps)).rejects.toThrow(`record ${ID} not visible yet`);
    expect(messages.records.size).toBe(0);
  });

  it.each([3, 4])('drops it on receive %i (its request was answered 503)', async (n) => {
    const { messages, deps } = setup(null);
    await expect(processMessage(delivery(n), deps)).resolves.toBeUndefined();
    expect(messages.records.size).toBe(0);
    expect(messages.calls.markFailed).toBe(0);
  });

  it('processes the record when it appears by the second receive', async () => {
    const { messages, deps } = setup(null);
    await expect(processMessage(delivery(1), deps)).rejects.toThrow();
    messages.records.set(ID, record);
    await processMessage(delivery(2), deps);
    expect(messages.records.get(ID)?.status).toBe('processed');
  });
});

describe('processMessage: accepted messages for the usage history', () => {
  const counted = (tally: AcceptedTally) =>
    Object.fromEntries([...tally.counts()].map(([group, perKey]) => [group, Object.fromEntries(perKey)]));

  it('counts a message once, on its transition out of queued, on the day it was accepted; a redelivery adds nothing', async () => {
    const { deps } = setup();
    const accepted = new AcceptedTally();
    await processMessage(delivery(1), { ...deps, accepted });
    await processMessage(delivery(2), { ...deps, accepted });
    expect(counted(accepted)).toEqual({ 'acct_1 2026-11-21': { key_1: 1 } });
  });

  it('counts a message that fails on its last receive, and not again when its redrive processes it', async () => {
    const { messages, deps } = setup();
    const accepted = new AcceptedTally();
    vi.spyOn(messages, 'markProcessed').mockRejectedValueOnce(new Error('downstream outage'));
    await expect(processMessage(delivery(5), { ...deps, accepted })).rejects.toThrow('downstream outage');
    expect(messages.records.get(ID)?.status).toBe('failed');
    await processMessage(delivery(1), { ...deps, accepted });
    expect(messages.records.get(ID)?.status).toBe('processed');
    expect(counted(accepted)).toEqual({ 'acct_1 2026-11-21': { key_1: 1 } });
  });

  it('counts nothing for an envelope without a record', async () => {
    const { deps } = setup(null);
    const accepted = new AcceptedTally();
    await processMessage(delivery(3), { ...deps, accepted });
    expect(accepted.counts().size).toBe(0);
  });
});
