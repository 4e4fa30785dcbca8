import { decodeTime } from 'ulid';
import { describe, expect, it } from 'vitest';
import { monotonicUlid } from '../../../lambda/shared/ulid.js';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe('monotonicUlid', () => {
  it('makes standard ULIDs that carry their time', () => {
    const t = Date.UTC(2026, 10, 21, 10, 15, 30, 123);
    const id = monotonicUlid(t);
    expect(id).toMatch(ULID);
    expect(decodeTime(id)).toBe(t);
  });

  it('sorts in the order the ids were made, within a millisecond and across them', () => {
    const t = Date.UTC(2030, 0, 1);
    const ids = Array.from({ length: 3_000 }, (_, i) => monotonicUlid(t + Math.floor(i / 1_000)));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps increasing when the clock steps back, on the later time', () => {
    const t = Date.UTC(2031, 0, 1);
    const first = monotonicUlid(t);
    const second = monotonicUlid(t - 5_000);
    expect(second > first).toBe(true);
    expect(decodeTime(second)).toBe(t);
  });

  it('refuses a time a ULID cannot hold', () => {
    expect(() => monotonicUlid(2 ** 48 + 1)).toThrow(/out of range/);
  });
});
