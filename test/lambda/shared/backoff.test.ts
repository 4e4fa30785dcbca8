import { describe, expect, it } from 'vitest';
import {
  backoffDelayMs,
  type BackoffPolicy,
  chunksOf,
  type Pacing,
  SDK_THROTTLING,
  untilAllTaken,
  withBackoff,
} from '../../../lambda/shared/backoff.js';

const POLICY: BackoffPolicy = { maxAttempts: 4, baseMs: 100, capMs: 250 };

/** Records the waits instead of waiting; `random` answers the highest jitter below 1. */
function recordingPacing(random = () => 0.999): Pacing & { waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms), random };
}

class Raced extends Error {}
const isRaced = (e: unknown) => e instanceof Raced;

/** A call that throws `errors` in turn, one per attempt, and counts its calls. */
function throwing(errors: (attempt: number) => Error): { calls: number; run: () => Promise<never> } {
  const call = {
    calls: 0,
    run: async (): Promise<never> => {
      call.calls++;
      throw errors(call.calls);
    },
  };
  return call;
}

describe('withBackoff', () => {
  it('retries the accepted errors with exponential, capped, jittered waits, then answers', async () => {
    const pacing = recordingPacing();
    let calls = 0;
    const out = await withBackoff(
      async (attempt) => {
        calls++;
        expect(attempt).toBe(calls);
        if (attempt < 4) throw new Raced();
        return 'done';
      },
      POLICY,
      (e) => e instanceof Raced,
      pacing,
    );
    expect(out).toBe('done');
    expect(pacing.waits).toEqual([99, 199, 249]); // floor(0.999 × min(250, 100 × 2^(n-1)))
  });

  it('rethrows the last error once the attempts are spent', async () => {
    const pacing = recordingPacing();
    const last = new Raced('fourth');
    const call = throwing((n) => (n === 4 ? last : new Raced()));
    await expect(withBackoff(call.run, POLICY, isRaced, pacing)).rejects.toBe(last);
    expect(call.calls).toBe(POLICY.maxAttempts);
    expect(pacing.waits).toHaveLength(POLICY.maxAttempts - 1);
  });

  it('rethrows an error it does not accept at once, without waiting', async () => {
    const pacing = recordingPacing();
    const other = new Error('not a race');
    await expect(withBackoff(throwing(() => other).run, POLICY, isRaced, pacing)).rejects.toBe(other);
    expect(pacing.waits).toEqual([]);
  });

  it('asks `retryable` only while an attempt is left', async () => {
    let asked = 0;
    const retryable = () => {
      asked++;
      return true;
    };
    const call = throwing(() => new Raced());
    const twice = { ...POLICY, maxAttempts: 2 };
    await expect(withBackoff(call.run, twice, retryable, recordingPacing())).rejects.toBeInstanceOf(Raced);
    expect(asked).toBe(1);
  });

  it('computes the wait with the full-jitter formula', () => {
    expect(backoffDelayMs(POLICY, 1, () => 0)).toBe(0);
    expect(backoffDelayMs(POLICY, 2, () => 0.5)).toBe(100);
    expect(backoffDelayMs(POLICY, 10, () => 0.5)).toBe(125);
    expect(backoffDelayMs(SDK_THROTTLING, 20, () => 0.5)).toBe(SDK_THROTTLING.capMs / 2);
  });
});

describe('untilAllTaken', () => {
  it('sends only the items left until none is, waiting between attempts', async () => {
    const pacing = recordingPacing(() => 0.5);
    const sent: number[][] = [];
    const takeFirst = async (pending: readonly number[]) => {
      sent.push([...pending]);
      return pending.slice(1);
    };
    await untilAllTaken([1, 2, 3], takeFirst, () => new Error('unexpected'), pacing);
    expect(sent).toEqual([[1, 2, 3], [2, 3], [3]]);
    expect(pacing.waits).toEqual([SDK_THROTTLING.baseMs / 2, SDK_THROTTLING.baseMs]);
  });

  it('gives up with the items still left after SDK_THROTTLING.maxAttempts attempts', async () => {
    const pacing = recordingPacing();
    let attempts = 0;
    const error = await untilAllTaken(
      ['a', 'b'],
      async (pending) => {
        attempts++;
        return pending.slice(0, 1);
      },
      (left) => new Error(`left: ${left.join(',')}`),
      pacing,
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe('left: a');
    expect(attempts).toBe(SDK_THROTTLING.maxAttempts);
  });

  it('rethrows an error of the batch call itself without retrying it', async () => {
    const pacing = recordingPacing();
    const boom = new Error('AccessDenied');
    await expect(untilAllTaken([1], throwing(() => boom).run, () => new Error('x'), pacing)).rejects.toBe(boom);
    expect(pacing.waits).toEqual([]);
  });

  it('chunksOf keeps the order', () => {
    expect(chunksOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
