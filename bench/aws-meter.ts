import type { InitializeMiddleware, MiddlewareStack } from '@smithy/types';

/** One SDK call as the meter saw it: all its attempts, from the first byte out to the last byte in. */
export interface AwsCall {
  /** e.g. `dynamodb:UpdateItem`, `sqs:SendMessage`. */
  readonly name: string;
  readonly table?: string;
  /** `performance.now()` at the start and end of the call. */
  readonly start: number;
  readonly end: number;
  readonly attempts: number;
  /**
   * DynamoDB: the item as written (PutItem), as answered (UpdateItem with ReturnValues ALL_NEW), or
   * as read (GetItem): what its capacity units are counted from.
   */
  readonly item?: Record<string, unknown>;
  /** GetItem: a strongly consistent read (a full read unit per 4 KB, else half). */
  readonly consistentRead?: boolean;
  /** UpdateItem and DeleteItem: the key, to size the item afterwards. */
  readonly key?: Record<string, unknown>;
  /** SQS SendMessage: the payload SQS bills for (body and attributes), in bytes. */
  readonly payloadBytes?: number;
}

const SERVICES: Readonly<Record<string, string>> = { DynamoDBClient: 'dynamodb', SQSClient: 'sqs' };

type Item = Record<string, unknown>;
type Output = { Attributes?: Item; Item?: Item; $metadata?: { attempts?: number } };

type Input = Record<string, unknown> & {
  TableName?: string;
  Item?: Record<string, unknown>;
  Key?: Record<string, unknown>;
  ConsistentRead?: boolean;
  MessageBody?: string;
  MessageAttributes?: Record<string, { DataType?: string; StringValue?: string }>;
};

function sqsPayloadBytes(input: Input): number {
  let bytes = Buffer.byteLength(input.MessageBody ?? '');
  for (const [name, value] of Object.entries(input.MessageAttributes ?? {})) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '') + Buffer.byteLength(value.StringValue ?? '');
  }
  return bytes;
}

/**
 * Records every call a client makes into `calls`, with a middleware at the outermost step of its
 * stack (`initialize`, high priority: retries happen inside it, so a retried call counts once).
 * On a lib-dynamodb client the input and output seen here are native values.
 */
export function meter<I extends object, O extends object>(
  client: { middlewareStack: MiddlewareStack<I, O> },
  calls: AwsCall[],
): void {
  const middleware: InitializeMiddleware<I, O> = (next, context) => async (args) => {
    const start = performance.now();
    const input = (args as { input: Input }).input;
    let output: Output | undefined;
    let attempts = 1;
    try {
      const result = await next(args);
      output = (result as { output: typeof output }).output;
      attempts = output?.$metadata?.attempts ?? 1;
      return result;
    } catch (error) {
      attempts = (error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
      throw error;
    } finally {
      const service = SERVICES[(context as { clientName?: string }).clientName ?? ''] ?? 'aws';
      const operation = ((context as { commandName?: string }).commandName ?? '').replace(/Command$/, '');
      const item =
        operation === 'PutItem' ? input.Item : operation === 'UpdateItem' ? output?.Attributes : operation === 'GetItem' ? output?.Item : undefined;
      calls.push({
        name: `${service}:${operation}`,
        start,
        end: performance.now(),
        attempts,
        ...(input.TableName ? { table: input.TableName } : {}),
        ...(item ? { item } : {}),
        ...(input.Key && operation !== 'GetItem' ? { key: input.Key } : {}),
        ...(operation === 'SendMessage' ? { payloadBytes: sqsPayloadBytes(input) } : {}),
      });
    }
  };
  client.middlewareStack.add(middleware, { step: 'initialize', priority: 'high', name: 'benchMeter' });
}

/** Sequential depth: calls whose in-flight intervals overlap count once (merged intervals). */
export function sequentialDepth(calls: readonly Pick<AwsCall, 'start' | 'end'>[]): number {
  const sorted = [...calls].sort((a, b) => a.start - b.start);
  let depth = 0;
  let until = Number.NEGATIVE_INFINITY;
  for (const c of sorted) {
    if (c.start >= until) {
      depth++;
      until = c.end;
    } else {
      until = Math.max(until, c.end);
    }
  }
  return depth;
}

/**
 * The size DynamoDB bills a write for, after its sizing rules: attribute names and values in
 * UTF-8 bytes, numbers about one byte per two significant digits plus one, booleans and nulls one
 * byte, maps and lists 3 bytes plus one per element plus their contents.
 */
export function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += Buffer.byteLength(name) + valueBytes(value);
  return bytes;
}

function valueBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value).replace(/[^0-9]/g, '').replace(/^0+/, '').length;
    return Math.ceil(Math.max(digits, 1) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((n: number, v) => n + valueBytes(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + valueBytes(v), 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value).reduce((n, [k, v]) => n + 1 + Buffer.byteLength(k) + valueBytes(v), 0);
  }
  return 0;
}
