import { describe, expect, it } from 'vitest';
import { LAST_ERROR_MAX_CHARS, sanitizeError } from '../../../lambda/messages/sanitize-error.js';

describe('sanitizeError', () => {
  it('keeps the message only, on one line, never the stack', () => {
    const error = new Error('connect ECONNREFUSED\n  127.0.0.1:443');
    expect(error.stack).toContain('sanitize-error.test.ts');
    expect(sanitizeError(error)).toBe('connect ECONNREFUSED 127.0.0.1:443');
  });

  it.each([
    ['Authorization: Bearer abc.def-123', 'Authorization: Bearer [redacted]'],
    ['authorization=abc123', 'authorization=[redacted]'],
    ['sent Bearer abc.def-123 upstream', 'sent Bearer [redacted] upstream'],
    ['key sk_live_0123456789abcdef refused', 'key [redacted] refused'],
    ['secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw is old', 'secret [redacted] is old'],
    ['AWS key AKIAIOSFODNN7EXAMPLE denied', 'AWS key [redacted] denied'],
    ['GET https://user:hunter2@example.com/x failed', 'GET https://[redacted]@example.com/x failed'],
    ['https://example.com/?token=abc123&x=1', 'https://example.com/?token=[redacted]&x=1'],
    ['failed (api_key=abc123)', 'failed (api_key=[redacted])'],
    ['{"password": "hunter2"}', '{"password": "[redacted]"}'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature', 'jwt [redacted]'],
  ])('scrubs %s', (message, expected) => {
    expect(sanitizeError(new Error(message))).toBe(expected);
  });

  it('bounds the length', () => {
    const text = sanitizeError(new Error('x'.repeat(10_000)));
    expect(text).toHaveLength(LAST_ERROR_MAX_CHARS);
    expect(text.endsWith('…')).toBe(true);
  });

  it('describes what is not an Error without printing it', () => {
    expect(sanitizeError('plain text')).toBe('plain text');
    expect(sanitizeError({ secret: 'x' })).toBe('non-Error thrown (object)');
  });
});
