import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { API_KEY_PREFIX } from '../../../contracts/api-keys.js';
import { displayParts, generateApiKey, hashApiKey, isWellFormedApiKey } from '../../../lambda/keys/api-key-format.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = /^sk_live_[0-9A-Za-z]{36}$/;

/** The format written down independently: 30 random base62 characters, then CRC-32 in 6 base62 digits. */
function checksumOf(random: string): string {
  let value = BigInt(crc32(Buffer.from(random, 'utf8')));
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

describe('generateApiKey', () => {
  it('makes keys of the documented shape: sk_live_ + 30 random + 6 checksum characters', () => {
    for (let i = 0; i < 50; i++) {
      const key = generateApiKey();
      expect(key).toMatch(KEY_SHAPE);
      expect(key).toHaveLength(44);
      expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
      expect(key.slice(-6)).toBe(checksumOf(key.slice(8, 38)));
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('never repeats over 1,000 draws', () => {
    const keys = new Set(Array.from({ length: 1_000 }, () => generateApiKey()));
    expect(keys.size).toBe(1_000);
  });

  it('uses the whole base62 alphabet in the random part', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1_000; i++) for (const c of generateApiKey().slice(8, 38)) seen.add(c);
    expect([...seen].sort().join('')).toBe([...BASE62].sort().join(''));
  });
});

describe('isWellFormedApiKey', () => {
  it('accepts a key built by hand to the format', () => {
    const random = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123';
    expect(isWellFormedApiKey(`sk_live_${random}${checksumOf(random)}`)).toBe(true);
  });

  it('detects every single-character substitution in a sample of keys', () => {
    let tried = 0;
    for (let k = 0; k < 5; k++) {
      const key = generateApiKey();
      for (let i = API_KEY_PREFIX.length; i < key.length; i++) {
        for (const c of BASE62) {
          if (c === key[i]) continue;
          const typo = key.slice(0, i) + c + key.slice(i + 1);
          tried++;
          if (isWellFormedApiKey(typo)) throw new Error(`substitution at ${i} by ${c} went undetected in ${key}`);
        }
      }
    }
    expect(tried).toBe(5 * 36 * 61);
  });

  it('detects a swap of two adjacent different characters', () => {
    const random = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123';
    const swapped = `${random.slice(0, 4)}${random[5]}${random[4]}${random.slice(6)}`;
    expect(isWellFormedApiKey(`sk_live_${swapped}${checksumOf(random)}`)).toBe(false);
  });

  it.each([
    ['another prefix', (k: string) => k.replace('sk_live_', 'sk_test_')],
    ['no prefix', (k: string) => k.slice(8)],
    ['one character short', (k: string) => k.slice(0, -1)],
    ['one character more', (k: string) => `${k}0`],
    ['a non-base62 character', (k: string) => `${k.slice(0, 20)}-${k.slice(21)}`],
    ['surrounding whitespace', (k: string) => ` ${k}`],
    ['the empty string', () => ''],
  ])('refuses %s', (_what, mangle) => {
    expect(isWellFormedApiKey(mangle(generateApiKey()))).toBe(false);
  });
});

describe('hashApiKey', () => {
  it('is the SHA-256 of the key in lower-case hex', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('displayParts', () => {
  it('shows the prefix with 4 characters and the last 4, never the middle', () => {
    const key = generateApiKey();
    const parts = displayParts(key);
    expect(parts).toEqual({ prefix: key.slice(0, 12), last4: key.slice(-4) });
    const shown = JSON.stringify(parts);
    const middle = key.slice(12, -4);
    expect(middle).toHaveLength(28);
    // No run of 5 characters of the middle appears in what is shown.
    for (let i = 0; i + 5 <= middle.length; i++) expect(shown).not.toContain(middle.slice(i, i + 5));
  });
});
