import { ManualClock } from './clock.js';
import { loadConfig, type PlanId, type PlatformConfig } from '../../lib/config/index.js';
import { type LocalPlatform, type LocalPlatformOptions, startLocalPlatform } from '../../local/platform.js';
import { assertResponseMatchesSpec, readResponse } from './openapi.js';

export interface TestPlatform extends LocalPlatform {
  readonly clock: ManualClock;
}

/** A minute boundary plus 5 s: every test window starts with a whole minute ahead of it. */
export function minuteStart(offsetMs = 5_000): number {
  return (Math.floor(Date.now() / 60_000) + 1) * 60_000 + offsetMs;
}

/** Small enough Enterprise limits to reach in a test; every other value is the shipped config. */
export function testConfig(): PlatformConfig {
  return loadConfig({ plans: { enterprise: { limits: { perMinute: 150, perDay: 400 } } } });
}

/** Starts the local platform on a free port, with a clock the test moves by hand. */
export async function startTestPlatform(
  options: Omit<LocalPlatformOptions, 'port' | 'clock'> = {},
): Promise<TestPlatform> {
  const clock = new ManualClock(minuteStart());
  const platform = await startLocalPlatform({
    port: 0,
    controlPort: 0,
    edgePort: 0,
    clock,
    config: testConfig(),
    visibilityTimeoutSeconds: 1,
    ...options,
  });
  return { ...platform, clock };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
  readonly text: string;
}

export interface RequestOptions {
  readonly method?: string;
  readonly key?: string;
  readonly headers?: Record<string, string>;
  /** A string is sent as is; an object as JSON; bytes without a Content-Type. */
  readonly body?: string | Uint8Array | Record<string, unknown>;
  readonly contentType?: string | null;
  /** Check the answer against openapi/openapi.yaml (default true). */
  readonly checkSpec?: boolean;
}

/** One HTTP request to the platform; the answer is checked against the OpenAPI document. */
export async function call(platform: LocalPlatform, path: string, options: RequestOptions = {}): Promise<Answer> {
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined) headers.Authorization = `Bearer ${options.key}`;
  let body: string | Uint8Array | undefined;
  if (typeof options.body === 'string') body = options.body;
  else if (options.body instanceof Uint8Array) body = options.body;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  const contentType =
    options.contentType === undefined ? (body === undefined ? null : 'application/json') : options.contentType;
  if (contentType !== null) headers['Content-Type'] = contentType;
  const payload = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const res = await fetch(`${platform.baseUrl}${path}`, { method, headers, ...(payload ? { body: payload } : {}) });
  const observed = await readResponse(method, path, res);
  if (options.checkSpec ?? true) assertResponseMatchesSpec(observed);
  return {
    status: observed.status,
    headers: res.headers,
    body: (typeof observed.body === 'object' && observed.body !== null ? observed.body : {}) as Record<string, unknown>,
    text: observed.text,
  };
}

export const send = (
  platform: LocalPlatform,
  key: string | undefined,
  message: unknown = 'Hello',
  extra: RequestOptions = {},
) =>
  call(platform, '/messages', {
    ...(key === undefined ? {} : { key }),
    body: { message } as Record<string, unknown>,
    ...extra,
  });

/** Runs `count` calls with at most `concurrency` in flight. */
export async function many<T>(count: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await fn(i);
      }
    }),
  );
  return results;
}

/** Polls until `check` returns a value or the deadline passes (bounded: tests stop by themselves). */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export const rateHeaders = (headers: Headers) => ({
  limit: Number(headers.get('x-ratelimit-limit')),
  remaining: Number(headers.get('x-ratelimit-remaining')),
  reset: Number(headers.get('x-ratelimit-reset')),
});

/**
 * A key of a new account of the plan: a budget of its own. Limits belong to the account, so a new
 * key of a demo account would share that account's budget with every other test's keys.
 */
export async function freshKey(platform: LocalPlatform, plan: PlanId, name: string): Promise<string> {
  const account = await platform.accountService.createAccount({ name, plan });
  return platform.issueKey(account, name);
}
