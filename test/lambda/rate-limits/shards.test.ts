import { describe, expect, it } from 'vitest';
import { MAX_SHARDS, shardCount, shardId, shardIds, sliceOf } from '../../../lambda/rate-limits/shards.js';

describe('shards', () => {
  it('keeps every plan up to 30,000/min on one item, and adds one per 30,000/min beyond, up to MAX_SHARDS', () => {
    expect(shardCount({ perMinute: 60, perDay: 1_000 })).toBe(1);
    expect(shardCount({ perMinute: 30_000, perDay: 1_000_000 })).toBe(1);
    expect(shardCount({ perMinute: 30_001, perDay: 1_000_000 })).toBe(2);
    expect(shardCount({ perMinute: 120_000, perDay: 10_000_000 })).toBe(4);
    expect(shardCount({ perMinute: 1_000_000_000, perDay: 1_000_000_000 })).toBe(MAX_SHARDS);
  });

  it('slices a budget so that the slices sum to it exactly, the first shards taking the remainders', () => {
    const limits = { perMinute: 100_001, perDay: 1_000_003 };
    const slices = Array.from({ length: 4 }, (_, i) => sliceOf(limits, 4, i));
    expect(slices).toEqual([
      { perMinute: 25_001, perDay: 250_001 },
      { perMinute: 25_000, perDay: 250_001 },
      { perMinute: 25_000, perDay: 250_001 },
      { perMinute: 25_000, perDay: 250_000 },
    ]);
    expect(sliceOf({ perMinute: 60, perDay: 1_000 }, 1, 0)).toEqual({ perMinute: 60, perDay: 1_000 });
  });

  it('names shard 0 after the account alone (the single item of a small plan)', () => {
    expect(shardId('acct_1', 0)).toBe('acct#acct_1');
    expect(shardIds('acct_1', 3)).toEqual(['acct#acct_1', 'acct#acct_1#1', 'acct#acct_1#2']);
  });
});
