import http from 'node:http';
import { ProvisionedThroughputExceededException, type ThrottlingReason } from '@aws-sdk/client-dynamodb';
import { INITIAL_RETRY_TOKENS, NO_RETRY_INCREMENT, Retry } from '@smithy/util-retry';
import { SDK_THROTTLING, withBackoff } from '../lambda/shared/backoff.js';
import { DATA_PLANE } from '../lambda/shared/aws-clients.js';
import type { Clock } from '../lambda/shared/clock.js';
import type { LimiterStore } from '../lambda/rate-limits/limiter-store.js';
import { readBody, serveOnLoopback } from './loopback.js';

/**
 * DynamoDB's per-item write ceiling, which neither dynalite nor the in-memory store has: each write (refused
 * conditional ones too) one unit, as limiter items stay under 1 KB; throttled writes consume nothing.
 */
const DEFAULT_ITEM_WRITES_PER_SECOND = 1_000;
export const THROTTLING_ERROR = 'ProvisionedThroughputExceededException';
export const THROTTLING_REASON = 'TableWriteKeyRangeThroughputExceeded';

/** Counts writes per item in each second of a clock; refuses those past the ceiling. */
export class ItemWriteCeiling {
  private second = Number.NaN;
  private readonly writes = new Map<string, number>();
  /** Writes refused, in all. */
  throttled = 0;

  constructor(
    private readonly clock: Clock,
    readonly writesPerSecond = DEFAULT_ITEM_WRITES_PER_SECOND,
  ) {}

  /** True when the item may take one more write this second (and counts it). */
  admit(item: string): boolean {
    const second = Math.floor(this.clock.now() / 1000);
    if (second !== this.second) {
      this.second = second;
      this.writes.clear();
    }
    const count = this.writes.get(item) ?? 0;
    if (count >= this.writesPerSecond) {
      this.throttled++;
      return false;
    }
    this.writes.set(item, count + 1);
    return true;
  }
}

const throttlingReasons = (tableName: string): ThrottlingReason[] => [
  { reason: THROTTLING_REASON, resource: `arn:aws:dynamodb:local:000000000000:table/${tableName}` },
];

/** The error document DynamoDB sends for a write past a partition's ceiling. */
function throttlingBody(tableName: string): Record<string, unknown> {
  return {
    __type: `com.amazonaws.dynamodb.v20120810#${THROTTLING_ERROR}`,
    message: 'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
    ThrottlingReasons: throttlingReasons(tableName),
  };
}

/** The error the SDK's DynamoDB client throws for that answer (after its own retries). */
function throttlingError(item: string): ProvisionedThroughputExceededException {
  return new ProvisionedThroughputExceededException({
    message: `item ${item}: write ceiling reached`,
    $metadata: { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 },
    ThrottlingReasons: throttlingReasons('RateLimits'),
  });
}

/** Methods of the limiter store that only read (they take read units, 3,000 per second per partition: not simulated). */
const READS = new Set<keyof LimiterStore>(['get']);

/** A limiter store (the in-memory one) behind the ceiling: every write, refused ones included, counts on its item. */
export function withItemWriteCeiling(store: LimiterStore, ceiling: ItemWriteCeiling): LimiterStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || READS.has(property as keyof LimiterStore)) return value;
      return (id: string, ...rest: unknown[]) => {
        if (!ceiling.admit(id)) return Promise.reject(throttlingError(id));
        return (value as (...a: unknown[]) => unknown).call(target, id, ...rest);
      };
    },
  });
}

/** The names the SDK classifies as throttling that DynamoDB answers (@smithy's THROTTLING_ERROR_CODES). */
const THROTTLING_NAMES = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException']);
const isThrottling = (error: unknown): boolean => {
  const e = error as { name?: string; $retryable?: { throttling?: boolean } } | null;
  return THROTTLING_NAMES.has(e?.name ?? '') || e?.$retryable?.throttling === true;
};

/** The Lambdas' DynamoDB client's retries of throttled calls, for the in-memory store; one instance per container. */
export function withClientRetries(
  store: LimiterStore,
  sleep: (ms: number) => Promise<void>,
  random: () => number = Math.random,
): LimiterStore {
  let capacity = INITIAL_RETRY_TOKENS;
  const cost = Retry.throttlingCost();
  const policy = { ...SDK_THROTTLING, maxAttempts: DATA_PLANE.maxAttempts };
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        let attempts = 0;
        const result = await withBackoff(
          (attempt) => {
            attempts = attempt;
            return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          },
          policy,
          (error) => {
            if (!isThrottling(error) || capacity < cost) return false;
            capacity -= cost;
            return true;
          },
          { sleep, random },
        );
        capacity = Math.min(INITIAL_RETRY_TOKENS, capacity + (attempts > 1 ? cost : NO_RETRY_INCREMENT));
        return result;
      };
    },
  });
}

const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

/** The ceiling in front of dynalite, as an HTTP proxy: the client's own retries meet its throttling errors. */
export async function startItemCeilingProxy(options: {
  readonly target: string;
  readonly ceiling: ItemWriteCeiling;
}): Promise<{ endpoint: string; stop: () => Promise<void> }> {
  const target = new URL(options.target);
  const { url, stop } = await serveOnLoopback('item ceiling proxy', 0, async (req, res) => {
    const body = (await readBody(req, Infinity)) as Buffer;
    const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    if (WRITE_OPERATIONS.has(operation)) {
      const input = JSON.parse(body.toString('utf8') || '{}') as { TableName?: string; Key?: unknown; Item?: unknown };
      const table = input.TableName ?? '';
      if (!options.ceiling.admit(`${table}/${JSON.stringify(input.Key ?? input.Item)}`)) {
        const headers = { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'throttled' };
        return void res.writeHead(400, headers).end(JSON.stringify(throttlingBody(table)));
      }
    }
    const forward = http.request(
      { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => answer.pipe(res.writeHead(answer.statusCode ?? 502, answer.headers)),
    );
    forward.on('error', () => res.writeHead(502).end());
    forward.end(body);
  }, { guard: false });
  return { endpoint: url, stop };
}
