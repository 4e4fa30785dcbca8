import type { InitializeMiddleware, MiddlewareStack } from '@smithy/types';

type Item = Record<string, unknown>;

/** One SDK call as the meter saw it: all its attempts, from the first byte out to the last byte in. */
export interface AwsCall {
  /** e.g. `dynamodb:UpdateItem`, `sqs:SendMessage`. */
  readonly name: string;
  readonly table?: string;
  /** `performance.now()` at the start and end of the call. */
  readonly start: number;
  readonly end: number;
  readonly attempts: number;
  /** What a DynamoDB call's units are counted from: as written (PutItem), answered (UpdateItem) or read (GetItem). */
  readonly item?: Item;
  readonly consistentRead?: boolean;
  /** UpdateItem and DeleteItem: the key, to size the item afterwards. */
  readonly key?: Item;
  /** BatchWriteItem: what its put and delete requests wrote, less those answered as unprocessed. */
  readonly putItems?: readonly Item[];
  readonly deleteKeys?: readonly Item[];
  /** SQS SendMessage: the payload SQS bills for (body and attributes); SendMessageBatch: its entries' total. */
  readonly payloadBytes?: number;
}

type WriteRequests = Record<string, ReadonlyArray<{ PutRequest?: { Item?: Item }; DeleteRequest?: { Key?: Item } }>>;
type Output = { Attributes?: Item; Item?: Item; UnprocessedItems?: WriteRequests; $metadata?: { attempts?: number } };

interface SqsEntry {
  MessageBody?: string;
  MessageAttributes?: Record<string, { DataType?: string; StringValue?: string }>;
}

type Input = Record<string, unknown> &
  SqsEntry & {
    TableName?: string;
    Item?: Item;
    Key?: Item;
    ConsistentRead?: boolean;
    RequestItems?: WriteRequests;
    Entries?: readonly SqsEntry[];
  };

function sqsPayloadBytes(entry: SqsEntry): number {
  let bytes = Buffer.byteLength(entry.MessageBody ?? '');
  for (const [name, value] of Object.entries(entry.MessageAttributes ?? {})) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value.DataType ?? '') + Buffer.byteLength(value.StringValue ?? '');
  }
  return bytes;
}

/**
 * A BatchWriteItem's processed requests: those sent less those answered as unprocessed (matched by
 * content: DynamoDB answers them as they were sent). A call that failed whole counts none.
 */
function batchWritten(input: Input, output: Output | undefined) {
  const putItems: Item[] = [];
  const deleteKeys: Item[] = [];
  if (!output) return { putItems, deleteKeys };
  const unprocessed = new Set(Object.values(output.UnprocessedItems ?? {}).flat().map((r) => JSON.stringify(r)));
  for (const request of Object.values(input.RequestItems ?? {}).flat()) {
    if (unprocessed.has(JSON.stringify(request))) continue;
    if (request.PutRequest?.Item) putItems.push(request.PutRequest.Item);
    if (request.DeleteRequest?.Key) deleteKeys.push(request.DeleteRequest.Key);
  }
  return { putItems, deleteKeys };
}

/** Records every call a client makes into `calls` (bench/README.md); on a lib-dynamodb client, native values. */
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
      // DynamoDBClient, SQSClient: dynamodb, sqs.
      const service = ((context as { clientName?: string }).clientName ?? 'aws').replace(/Client$/, '').toLowerCase();
      const operation = ((context as { commandName?: string }).commandName ?? '').replace(/Command$/, '');
      const item =
        operation === 'PutItem' ? input.Item : operation === 'UpdateItem' ? output?.Attributes : operation === 'GetItem' ? output?.Item : undefined;
      const batch = operation === 'BatchWriteItem' ? batchWritten(input, output) : undefined;
      calls.push({
        name: `${service}:${operation}`,
        start,
        end: performance.now(),
        attempts,
        // BatchWriteItem names its table in RequestItems (the store writes one table per call).
        ...(input.TableName ? { table: input.TableName } : batch ? { table: Object.keys(input.RequestItems ?? {})[0] ?? '' } : {}),
        ...(item ? { item } : {}),
        // A strongly consistent read costs a whole read unit per 4 KB, an eventually consistent one half.
        ...(input.ConsistentRead ? { consistentRead: true } : {}),
        ...(input.Key && operation !== 'GetItem' ? { key: input.Key } : {}),
        ...(batch ? { putItems: batch.putItems, deleteKeys: batch.deleteKeys } : {}),
        ...(operation.startsWith('SendMessage')
          ? { payloadBytes: (input.Entries ?? [input]).reduce((n, e) => n + sqsPayloadBytes(e), 0) }
          : {}),
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

/** The size DynamoDB bills an item for, after its sizing rules (names and values; numbers ~1 byte per 2 digits). */
export function itemBytes(item: Item): number {
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
