import { describe, expect, it } from 'vitest';
import { checkSlug, SLUG_RULE } from '../../../lambda/projects/slug.js';

describe('checkSlug', () => {
  it('accepts a DNS label of 3 to 40 lower-case letters, digits and inner hyphens, trimmed and lower-cased', () => {
    expect(checkSlug('my-site')).toEqual({ ok: true, slug: 'my-site' });
    expect(checkSlug('  My-Site2 ')).toEqual({ ok: true, slug: 'my-site2' });
    expect(checkSlug('abc')).toEqual({ ok: true, slug: 'abc' });
    expect(checkSlug('a'.repeat(40))).toEqual({ ok: true, slug: 'a'.repeat(40) });
  });

  it('refuses what breaks the rule with one capitalised sentence (400 invalid_request)', () => {
    for (const input of ['UX_Test', '-portfolio', 'portfolio-', 'ab', 'a'.repeat(41), 'my site', 'café', '']) {
      expect(checkSlug(input)).toEqual({ ok: false, slug: input.trim().toLowerCase(), code: 'invalid_request', message: SLUG_RULE });
    }
    expect(SLUG_RULE).toBe('The slug must be 3 to 40 lower-case letters, digits or hyphens, not starting or ending with a hyphen.');
  });

  it('refuses the names the platform keeps for itself (409 slug_taken)', () => {
    expect(checkSlug('WWW')).toEqual({ ok: false, slug: 'www', code: 'slug_taken', message: 'The slug www is reserved by the platform.' });
    expect(checkSlug('dashboard')).toMatchObject({ ok: false, code: 'slug_taken' });
  });
});
