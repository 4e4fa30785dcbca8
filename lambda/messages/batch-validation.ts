import { HttpProblem, problems } from '../shared/problem.js';
import {
  type CodedFieldError,
  fieldErrorsOf,
  isPlainSend,
  type RawRequest,
  readJsonRequest,
  sendFieldErrors,
  throwFieldErrors,
} from './validation.js';

const MAX_BATCH_MESSAGES = 100;
const MAX_BATCH_BODY_BYTES = 1024 * 1024;
/** Field errors listed per item at most: one answer names every bad item without growing with a hostile body. */
const ERRORS_PER_ITEM = 5;
/** Unknown top-level fields listed at most (the first ones, in body order). */
const TOP_LEVEL_ERRORS = 10;

/**
 * Validates `POST /messages/batch` in the order of a single send: media type, encoding, JSON, the
 * fields (top level, then every item by the single-send rules, every bad item named), then sizes
 * (the body, then each item as the body `{"message": …}` of a single send). Pure.
 */
export function validateBatchRequest(request: RawRequest, limits: { readonly maxMessageBytes: number }) {
  const { body, byteLength, idempotencyKey } = readJsonRequest(request, '{"messages": [{"message": "Hello"}]}');
  const errors = topLevelErrors(body);
  const items = body.messages;
  if (errors.length === 0 && Array.isArray(items)) {
    items.forEach((item, i) => errors.push(...itemErrors(item, i)));
  }
  throwFieldErrors(errors);

  if (byteLength > MAX_BATCH_BODY_BYTES) throw problems.payloadTooLarge(MAX_BATCH_BODY_BYTES);
  const messages = (items as Array<{ message: string }>).map((item) => item.message);
  const oversized = messages.flatMap((message, i) => {
    const bytes = Buffer.byteLength(JSON.stringify({ message }), 'utf8');
    return bytes > limits.maxMessageBytes
      ? [{ field: `messages[${i}].message`, message: `is ${bytes} bytes as {"message": …}; at most ${limits.maxMessageBytes}` }]
      : [];
  });
  if (oversized.length > 0) {
    throw new HttpProblem({
      status: 413,
      code: 'payload_too_large',
      detail: `Each message may be at most ${limits.maxMessageBytes} bytes as a single send's body {"message": …}, as for POST /messages.`,
      errors: oversized,
    });
  }
  return { messages, idempotencyKey };
}

/** `messages` (an array of 1 to 100) and nothing else at the top level. */
const topLevelErrors = (body: Record<string, unknown>) =>
  fieldErrorsOf(
    body,
    'messages',
    (items) =>
      !Array.isArray(items)
        ? 'must be an array of {"message": "…"} objects'
        : items.length === 0 || items.length > MAX_BATCH_MESSAGES
          ? `must hold 1 to ${MAX_BATCH_MESSAGES} messages, got ${items.length}`
          : undefined,
    TOP_LEVEL_ERRORS,
  );

/** One item's errors, by the single-send rules, with its position in the field names. */
function itemErrors(item: unknown, index: number): CodedFieldError[] {
  const at = `messages[${index}]`;
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return [{ field: at, message: 'must be an object such as {"message": "Hello"}', code: 'invalid_field' }];
  }
  if (isPlainSend(item)) return [];
  const errors = sendFieldErrors(item as Record<string, unknown>);
  const listed = errors.slice(0, ERRORS_PER_ITEM).map((e) => ({ ...e, field: `${at}.${e.field}` }));
  if (errors.length > ERRORS_PER_ITEM) {
    listed.push({ field: at, message: `and ${errors.length - ERRORS_PER_ITEM} more problems`, code: 'unknown_field' });
  }
  return listed;
}
