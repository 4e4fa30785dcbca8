import { createHash, createHmac } from 'node:crypto';
import type { AwsCredentials } from './credentials.js';

/** A request to sign: `path` and `query` as they go on the wire (path segments already encoded once). */
export interface SignableRequest {
  readonly method: string;
  readonly path: string;
  readonly query?: Readonly<Record<string, string | readonly string[]>>;
  /** Must include `host`; names in any case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

export interface SigningParams {
  readonly credentials: AwsCredentials;
  readonly region: string;
  readonly service: string;
  /** The signing time (Date or epoch ms). */
  readonly date: Date | number;
}

/** The headers to add to the request: `authorization`, `x-amz-date` and, with a session token, `x-amz-security-token`. */
export interface SignedHeaders {
  readonly authorization: string;
  readonly 'x-amz-date': string;
  readonly 'x-amz-security-token'?: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
// Headers that proxies and the HTTP stack may rewrite: never signed (the SDK's list).
const UNSIGNABLE = new Set([
  'authorization', 'cache-control', 'connection', 'expect', 'from', 'keep-alive', 'max-forwards', 'pragma',
  'referer', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'x-amzn-trace-id',
]);

/** RFC 3986 encoding as SigV4 requires: everything but unreserved characters. */
export const uriEncode = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `YYYYMMDDTHHMMSSZ`. */
export function amzDate(date: Date | number): string {
  return new Date(date).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/**
 * Non-S3 services: dot segments and empty segments are normalised away, then every segment is
 * encoded again (the wire path is already encoded once, so the canonical path is encoded twice).
 */
export function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(uriEncode(segment));
  }
  const trailing = segments.length > 0 && path.endsWith('/') ? '/' : '';
  return `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${trailing}`;
}

/** Parameters sorted by encoded name, repeated ones by their encoded `name=value` pair. */
export function canonicalQuery(query: SignableRequest['query'] = {}): string {
  const byKey = new Map<string, string>();
  for (const [key, value] of Object.entries(query)) {
    if (key.toLowerCase() === 'x-amz-signature') continue;
    const k = uriEncode(key);
    const pairs = (typeof value === 'string' ? [value] : [...value]).map((v) => `${k}=${uriEncode(v)}`).sort();
    byKey.set(k, pairs.join('&'));
  }
  return [...byKey.keys()].sort().map((k) => byKey.get(k)).filter((s) => s).join('&');
}

/** Header values are signed with runs of whitespace as one space, trimmed. */
const canonicalValue = (value: string) => value.replace(/[\r\n]/g, ' ').replace(/[ \t]+/g, ' ').replace(/^ | $/g, '');

const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

// Signing keys change once a day per credentials/region/service; a few entries cover a Lambda's life.
const signingKeys = new Map<string, Buffer>();
const MAX_SIGNING_KEYS = 50;

function signingKey(secret: string, shortDate: string, region: string, service: string): Buffer {
  const cacheKey = `${shortDate}\n${region}\n${service}\n${secret}`;
  let key = signingKeys.get(cacheKey);
  if (!key) {
    key = hmac(hmac(hmac(hmac(`AWS4${secret}`, shortDate), region), service), 'aws4_request');
    if (signingKeys.size >= MAX_SIGNING_KEYS) signingKeys.delete(signingKeys.keys().next().value as string);
    signingKeys.set(cacheKey, key);
  }
  return key;
}

/** The canonical request and string to sign, exposed for tests against published examples. */
export function signingStrings(request: SignableRequest, params: SigningParams) {
  const longDate = amzDate(params.date);
  const shortDate = longDate.slice(0, 8);
  const headers: Record<string, string> = {};
  let contentHash: string | undefined;
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    // Generated below; a caller's own copy would be stale.
    if (UNSIGNABLE.has(lower) || lower.startsWith('proxy-') || lower.startsWith('sec-')) continue;
    if (lower === 'x-amz-date' || lower === 'date' || value === undefined) continue;
    headers[lower] = canonicalValue(value);
    if (lower === 'x-amz-content-sha256') contentHash = value;
  }
  headers['x-amz-date'] = longDate;
  if (params.credentials.sessionToken) headers['x-amz-security-token'] = canonicalValue(params.credentials.sessionToken);
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  // A precomputed hash (or UNSIGNED-PAYLOAD) given by the caller stands for the body, as in S3.
  const payloadHash =
    contentHash ?? (request.body === undefined ? EMPTY_SHA256 : sha256Hex(request.body));
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalPath(request.path),
    canonicalQuery(request.query),
    ...names.map((n) => `${n}:${headers[n]}`),
    '',
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${shortDate}/${params.region}/${params.service}/aws4_request`;
  const stringToSign = `${ALGORITHM}\n${longDate}\n${scope}\n${sha256Hex(canonicalRequest)}`;
  return { longDate, shortDate, scope, signedHeaders, canonicalRequest, stringToSign };
}

/** SigV4 header signing; pure apart from the signing-key cache. */
export function signRequest(request: SignableRequest, params: SigningParams): SignedHeaders {
  const s = signingStrings(request, params);
  const { accessKeyId, secretAccessKey, sessionToken } = params.credentials;
  const key = signingKey(secretAccessKey, s.shortDate, params.region, params.service);
  const signature = createHmac('sha256', key).update(s.stringToSign, 'utf8').digest('hex');
  return {
    authorization: `${ALGORITHM} Credential=${accessKeyId}/${s.scope}, SignedHeaders=${s.signedHeaders}, Signature=${signature}`,
    'x-amz-date': s.longDate,
    ...(sessionToken ? { 'x-amz-security-token': sessionToken } : {}),
  };
}
