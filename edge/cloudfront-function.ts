// The viewer-request CloudFront Function (edge/viewer-request.js): the text the CDK deploys, the same
// text run in node:vm (tests, local edge), and EDGE_VALUE, the one shape of KeyValueStore values.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { REDIRECT_STATUSES, type RedirectStatus } from '../contracts/domains.js';

const VIEWER_REQUEST_FILE = new URL('./viewer-request.js', import.meta.url);
export const KVS_ID_PLACEHOLDER = '__KVS_ID__';
const KVS_ID_LINE = `const kvsId = '${KVS_ID_PLACEHOLDER}';`;
const IMPORT_LINE = 'import cf from \'cloudfront\';';

/** KeyValueStore limits; the size counts UTF-8 bytes of keys plus values against 5,000,000 (the stricter "5 MB"). */
export const KVS_LIMITS = { keyChars: 512, valueChars: 1024, storeBytes: 5_000_000 } as const;

export function kvsEntryBytes(key: string, value: string): number {
  return Buffer.byteLength(key, 'utf8') + Buffer.byteLength(value, 'utf8');
}

/** Reads values like the runtime's `cf.kvs(id)` handle: a missing key rejects. */
export interface KeyValueStoreReader {
  get(key: string, options?: { format?: 'string' | 'json' | 'bytes' }): Promise<unknown>;
}

function kvsError(name: string, message: string): Error {
  return Object.assign(new Error(message), { name });
}

/** In-memory KeyValueStore for tests and the local edge, with the real one's ETag conflicts and size limit. */
export class MemoryKeyValueStore implements KeyValueStoreReader {
  private readonly entries = new Map<string, string>();
  private bytes = 0;
  private version = 0;

  constructor(initial: Record<string, string> = {}, private readonly maxBytes: number = KVS_LIMITS.storeBytes) {
    for (const [key, value] of Object.entries(initial)) this.put(key, value);
  }

  get etag(): string {
    return `v${this.version}`;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  get itemCount(): number {
    return this.entries.size;
  }

  put(key: string, value: string, ifMatch?: string): void {
    if (key.length === 0 || key.length > KVS_LIMITS.keyChars) throw new Error(`KeyValueStore key must be 1-${KVS_LIMITS.keyChars} characters`);
    if (value.length > KVS_LIMITS.valueChars) throw new Error(`KeyValueStore value for ${key} exceeds ${KVS_LIMITS.valueChars} characters`);
    this.checkVersion(ifMatch);
    const previous = this.entries.get(key);
    const bytes = this.bytes - (previous === undefined ? 0 : kvsEntryBytes(key, previous)) + kvsEntryBytes(key, value);
    if (bytes > this.maxBytes) {
      throw kvsError('ServiceQuotaExceededException', `KeyValueStore size limit exceeded: ${bytes} bytes with ${key}, the most is ${this.maxBytes}`);
    }
    this.entries.set(key, value);
    this.bytes = bytes;
    this.version++;
  }

  delete(key: string, ifMatch?: string): boolean {
    this.checkVersion(ifMatch);
    const previous = this.entries.get(key);
    if (previous === undefined) return false;
    this.entries.delete(key);
    this.bytes -= kvsEntryBytes(key, previous);
    this.version++;
    return true;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The data-plane GetKey, not the runtime's get. */
  value(key: string): string | undefined {
    return this.entries.get(key);
  }

  async get(key: string, options: { format?: 'string' | 'json' | 'bytes' } = {}): Promise<unknown> {
    const value = this.entries.get(key);
    if (value === undefined) throw new Error(`Key not found: ${key}`);
    if (options.format === 'json') return JSON.parse(value) as unknown;
    if (options.format === 'bytes') return Buffer.from(value, 'utf8');
    return value;
  }

  private checkVersion(ifMatch: string | undefined): void {
    if (ifMatch !== undefined && ifMatch !== this.etag) {
      throw kvsError('ConflictException', `KeyValueStore changed since version ${ifMatch} (now ${this.etag})`);
    }
  }
}

interface CloudFrontFunctionValue {
  value: string;
  multiValue?: { value: string }[];
}

interface CloudFrontFunctionRequest {
  method: string;
  uri: string;
  querystring: Record<string, CloudFrontFunctionValue>;
  headers: Record<string, CloudFrontFunctionValue>;
  cookies?: Record<string, CloudFrontFunctionValue>;
  /** Runtime 2.0 helper: the query string unparsed, without "?"; undefined when there was no "?". */
  rawQueryString?: () => string | undefined;
}

export interface CloudFrontFunctionEvent {
  version?: string;
  context?: { eventType?: 'viewer-request'; distributionId?: string; endpoint?: string; requestId?: string };
  viewer?: { ip: string };
  request: CloudFrontFunctionRequest;
}

export interface CloudFrontFunctionResponse {
  statusCode: number;
  statusDescription?: string;
  headers: Record<string, { value: string }>;
  body?: string | { encoding: 'text' | 'base64'; data: string };
}

export type CloudFrontFunctionResult = CloudFrontFunctionRequest | CloudFrontFunctionResponse;

export function isResponse(result: CloudFrontFunctionResult): result is CloudFrontFunctionResponse {
  return typeof (result as CloudFrontFunctionResponse).statusCode === 'number';
}

/** The function file as checked in (placeholder id included). */
export function viewerRequestSource(): string {
  return readFileSync(VIEWER_REQUEST_FILE, 'utf8');
}

/** The code as deployed: the file with `kvsId` (maybe a CDK token) in place of the placeholder. */
export function functionSource(kvsId: string): string {
  if (kvsId.length === 0 || /['"\\\r\n]/.test(kvsId)) throw new Error(`Unusable KeyValueStore id: ${JSON.stringify(kvsId)}`);
  const source = viewerRequestSource();
  if (source.split(KVS_ID_LINE).length !== 2) throw new Error(`${VIEWER_REQUEST_FILE.pathname} must contain ${KVS_ID_LINE} once`);
  return source.replace(KVS_ID_LINE, `const kvsId = '${kvsId}';`);
}

/** Runs the deployed text in node:vm with only `cf` and `console`; line numbers match the real file. */
export function loadViewerRequest(options: {
  kvsId: string;
  kvs: KeyValueStoreReader;
  log?: (msg: string) => void;
}): (event: CloudFrontFunctionEvent) => Promise<CloudFrontFunctionResult> {
  const source = functionSource(options.kvsId);
  if (!source.startsWith(`${IMPORT_LINE}\n`)) throw new Error(`${VIEWER_REQUEST_FILE.pathname} must start with ${IMPORT_LINE}`);
  const code = `'use strict';${source.slice(IMPORT_LINE.length)}\n;handler`;
  const log = options.log ?? ((msg: string) => console.log(msg));
  const cf = {
    kvs(id?: string): KeyValueStoreReader {
      if (id !== options.kvsId) throw new Error(`KeyValueStore ${String(id)} is not associated with this function`);
      return options.kvs;
    },
  };
  const context = vm.createContext({ cf, console: { log: (...args: unknown[]) => log(args.map(String).join(' ')) } });
  const handler: unknown = new vm.Script(code, { filename: VIEWER_REQUEST_FILE.pathname }).runInContext(context);
  if (typeof handler !== 'function') throw new Error('viewer-request.js defines no handler function');
  return async (event) => (await handler(event)) as CloudFrontFunctionResult;
}

/** A viewer-request event as CloudFront builds it: lower-case headers, the query parsed (repeats in multiValue). */
export function viewerRequestEvent(request: {
  host: string;
  /** Path and query as sent, e.g. /p/q?x=1&flag */
  url: string;
  method?: string;
  headers?: Record<string, string>;
}): CloudFrontFunctionEvent {
  const mark = request.url.indexOf('?');
  const uri = mark < 0 ? request.url : request.url.slice(0, mark);
  const raw = mark < 0 ? undefined : request.url.slice(mark + 1);
  const querystring: Record<string, CloudFrontFunctionValue> = {};
  for (const pair of raw ? raw.split('&') : []) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    const entry = querystring[key];
    if (!entry) querystring[key] = { value };
    else entry.multiValue = [...(entry.multiValue ?? [{ value: entry.value }]), { value }];
  }
  const headers: Record<string, CloudFrontFunctionValue> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = { value };
  headers.host = { value: request.host };
  return {
    version: '1.0',
    context: { eventType: 'viewer-request' },
    viewer: { ip: '127.0.0.1' },
    request: { method: request.method ?? 'GET', uri: uri === '' ? '/' : uri, querystring, headers, cookies: {}, rawQueryString: () => raw },
  };
}

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/;
const DEPLOY_PREFIX = /^[\w-]+(\/[\w-][\w.-]*)*$/;

function sized(value: string): string {
  if (value.length > KVS_LIMITS.valueChars) throw new Error(`KeyValueStore value exceeds ${KVS_LIMITS.valueChars} characters`);
  return value;
}

/** The exact KeyValueStore values the function understands (key = the normalised host name). */
export const EDGE_VALUE = {
  /** e.g. projects/<projectId>/deploys/<deployId> */
  serve(prefix: string): string {
    if (!DEPLOY_PREFIX.test(prefix)) throw new Error(`Invalid deploy prefix: ${prefix}`);
    return sized(JSON.stringify({ s: prefix }));
  },
  redirect(to: string, status: RedirectStatus = 301): string {
    if (!HOST_NAME.test(to)) throw new Error(`Invalid redirect target host: ${to}`);
    if (!REDIRECT_STATUSES.includes(status)) throw new Error(`Invalid redirect status: ${String(status)}`);
    return sized(JSON.stringify({ r: to, c: status }));
  },
  removed(): string {
    return JSON.stringify({ x: 1 });
  },
} as const;
