import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { API_KEY_PREFIX } from '../../contracts/api-keys.js';

/**
 * API key format: `sk_live_` + 30 base62 random characters + a 6-character base62 CRC-32 checksum,
 * so secret scanners can recognise our keys and reject typos without a lookup (like GitHub tokens).
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

function toBase62(value: number, length: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < length; i++) {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out;
}

export function generateApiKey(): string {
  const bytes = randomBytes(RANDOM_LENGTH);
  let random = '';
  // 248 = 4 × 62: rejection-free mapping would bias; take bytes < 248 only.
  for (let i = 0; random.length < RANDOM_LENGTH; i++) {
    const byte = i < bytes.length ? (bytes[i] as number) : (randomBytes(1)[0] as number);
    if (byte < 248) random += BASE62[byte % 62];
  }
  return `${API_KEY_PREFIX}${random}${toBase62(crc32(random), CHECKSUM_LENGTH)}`;
}

/** True for a well-formed key whose checksum matches. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const body = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + RANDOM_LENGTH);
  return key.slice(-CHECKSUM_LENGTH) === toBase62(crc32(body), CHECKSUM_LENGTH);
}

/** Keys are stored only as this hash. */
export const hashApiKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** What may be shown of a key after creation. */
export const displayParts = (key: string) => ({
  prefix: key.slice(0, API_KEY_PREFIX.length + 4),
  last4: key.slice(-4),
});
