import { describe, expect, it } from 'vitest';
import { header } from '../../../lambda/shared/http-headers.js';

describe('header', () => {
  it('finds a header whatever the case of its name', () => {
    expect(header({ 'CONTENT-TYPE': 'a' }, 'content-type')).toBe('a');
    expect(header({ 'idempotency-key': 'b' }, 'Idempotency-Key')).toBe('b');
    expect(header({ other: 'c' }, 'content-type')).toBeUndefined();
  });
});
