import { randomFillSync } from 'node:crypto';

/** Crockford's base32, as in the ULID spec. */
const ENCODING = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_CHARS = 16;
/** 80 random bits as 16 base32 digits. */
const digits = new Uint8Array(RANDOM_CHARS);
// One getRandomValues call per 256 ids instead of one per character (the `ulid` package's cost).
const pool = new Uint8Array(RANDOM_CHARS * 256);
let poolOffset = pool.length;

let lastTime = -1;
let lastTimeText = '';
let lastRandomText = '';

function encodeTime(ms: number): string {
  let text = '';
  for (let i = 0; i < 10; i++) {
    text = ENCODING[ms % 32] + text;
    ms = Math.floor(ms / 32);
  }
  return text;
}

function randomText(): string {
  let text = '';
  for (let i = 0; i < RANDOM_CHARS; i++) text += ENCODING[digits[i] as number];
  return text;
}

/** A monotonic ULID, as the `ulid` package's `monotonicFactory` makes them, from batched CSPRNG bytes. */
export function monotonicUlid(nowMs: number): string {
  if (nowMs <= lastTime) {
    let i = RANDOM_CHARS - 1;
    while (i >= 0 && digits[i] === 31) digits[i--] = 0;
    if (i < 0) throw new Error('ULID random part overflowed within one millisecond');
    digits[i] = (digits[i] as number) + 1;
    lastRandomText = randomText();
    return lastTimeText + lastRandomText;
  }
  if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > 2 ** 48 - 1) throw new Error(`ULID time out of range: ${nowMs}`);
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  // 256 is a multiple of 32, so `byte & 31` is uniform.
  for (let i = 0; i < RANDOM_CHARS; i++) digits[i] = (pool[poolOffset++] as number) & 31;
  lastTime = nowMs;
  lastTimeText = encodeTime(nowMs);
  lastRandomText = randomText();
  return lastTimeText + lastRandomText;
}
