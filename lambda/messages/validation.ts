import { type FieldError, problems } from '../shared/problem.js';

export interface RawRequest {
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string | null;
  readonly isBase64Encoded: boolean;
}

/** `application/json`, case-insensitive, with optional parameters such as charset=utf-8. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const [type, ...params] = contentType.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  return params.every((p) => {
    const [k, v] = p.split('=').map((s) => s.trim().toLowerCase());
    return k !== 'charset' || v === 'utf-8' || v === 'utf8' || v === '"utf-8"';
  });
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The two headers a send reads, found in one pass over the names (the first of each, any case). */
function sendHeaders(headers: RawRequest['headers']): { contentType?: string; idempotencyKey?: string } {
  let contentType: string | undefined;
  let idempotencyKey: string | undefined;
  let foundType = false;
  let foundKey = false;
  for (const key in headers) {
    // Lengths first: most names are neither, and lower-casing every name costs more than the rest.
    if (key.length === 12 && !foundType && key.toLowerCase() === 'content-type') {
      contentType = headers[key];
      foundType = true;
    } else if (key.length === 15 && !foundKey && key.toLowerCase() === 'idempotency-key') {
      idempotencyKey = headers[key];
      foundKey = true;
    }
  }
  return { contentType, idempotencyKey };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const SURROGATE = /[\uD800-\uDFFF]/;

/** The body as text and its size in bytes; `undefined` text when the bytes are not UTF-8. */
function bodyText(request: RawRequest): { text: string | undefined; byteLength: number } {
  const body = request.body;
  if (body === null) return { text: '', byteLength: 0 };
  if (!request.isBase64Encoded && !SURROGATE.test(body)) {
    // A string without surrogates is valid Unicode: it is its own UTF-8 decoding.
    return { text: body, byteLength: Buffer.byteLength(body, 'utf8') };
  }
  const bytes = Buffer.from(body, request.isBase64Encoded ? 'base64' : 'utf8');
  try {
    return { text: utf8.decode(bytes), byteLength: bytes.byteLength };
  } catch {
    return { text: undefined, byteLength: bytes.byteLength };
  }
}

/** The checks every send shares, in the documented order: media type, Idempotency-Key, encoding, JSON, an object. */
export function readJsonRequest(
  request: RawRequest,
  example: string,
): { body: Record<string, unknown>; byteLength: number; idempotencyKey: string | undefined } {
  const { contentType, idempotencyKey } = sendHeaders(request.headers);
  if (contentType !== 'application/json' && !isJsonMediaType(contentType)) {
    throw problems.badRequest(
      'unsupported_media_type',
      contentType
        ? `Content-Type must be application/json, got "${contentType.slice(0, 100)}".`
        : 'Content-Type: application/json is required.',
    );
  }

  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw problems.badRequest(
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 printable ASCII characters.',
    );
  }

  const { text, byteLength } = bodyText(request);
  if (text === undefined) throw problems.badRequest('invalid_encoding', 'The request body is not valid UTF-8.');
  if (text.trim() === '') throw problems.badRequest('invalid_json', 'The request body is empty; send a JSON object.');

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw problems.badRequest('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw problems.badRequest('invalid_json', `The request body must be a JSON object such as ${example}.`);
  }
  return { body: parsed as Record<string, unknown>, byteLength, idempotencyKey };
}

/** Validates a send in the documented order: media type, encoding, JSON, fields, then size. Pure (no I/O). */
export function validateSendRequest(request: RawRequest, maxBodyBytes: number) {
  const { body: parsed, byteLength, idempotencyKey } = readJsonRequest(request, '{"message": "Hello"}');

  if (!isPlainSend(parsed)) throwFieldErrors(sendFieldErrors(parsed));

  if (byteLength > maxBodyBytes) throw problems.payloadTooLarge(maxBodyBytes);
  return { message: (parsed as { message: string }).message, idempotencyKey };
}

/** The common, valid body: exactly one field, a non-empty string `message` (sendFieldErrors judges anything else). */
export function isPlainSend(body: object): boolean {
  const message = (body as { message?: unknown }).message;
  if (typeof message !== 'string' || message === '' || !Object.hasOwn(body, 'message')) return false;
  let keys = 0;
  for (const key in body) {
    if (++keys > 1 || key !== 'message') return false;
  }
  return keys === 1;
}

export type CodedFieldError = FieldError & { code: 'missing_field' | 'invalid_field' | 'unknown_field' };

/** A 400 listing every field error (the first one's code), if there are any. */
export function throwFieldErrors(errors: readonly CodedFieldError[]): void {
  if (errors.length === 0) return;
  throw problems.badRequest(
    (errors[0] as CodedFieldError).code,
    errors.map((e) => `${e.field}: ${e.message}`).join('; '),
    errors.map(({ field, message }) => ({ field, message })),
  );
}

/**
 * Every problem of a body that must hold `field` and nothing else: a missing or invalid `field` first
 * (its code names the most useful fix), then at most `maxUnknown` unknown fields in body order.
 */
export function fieldErrorsOf(
  body: Record<string, unknown>,
  field: string,
  invalid: (value: unknown) => string | undefined,
  maxUnknown = Number.POSITIVE_INFINITY,
): CodedFieldError[] {
  const errors: CodedFieldError[] = [];
  const value = body[field];
  const problem = value === undefined ? 'is required' : invalid(value);
  if (problem) errors.push({ field, message: problem, code: value === undefined ? 'missing_field' : 'invalid_field' });
  for (const key of Object.keys(body).filter((k) => k !== field).slice(0, maxUnknown)) {
    errors.push({ field: key, message: `is not a known field (only "${field}" is accepted)`, code: 'unknown_field' });
  }
  return errors;
}

/** The errors of a single send's body `{"message": string}` (written out: not worth a schema library in every bundle). */
export const sendFieldErrors = (body: Record<string, unknown>) =>
  fieldErrorsOf(body, 'message', (message) =>
    typeof message !== 'string' ? 'must be a string' : message === '' ? 'must not be empty' : undefined,
  );
