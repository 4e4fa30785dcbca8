import type {
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { AwsClient, type AwsClientConfig, AwsServiceError, jsonBody } from './aws-client.js';

/** DynamoDB's JSON form of a value; `B` is base64 as on the wire. */
export type AttributeValue =
  | { S: string } |
  { N: string } |
  { B: string } |
  { BOOL: boolean } |
  { NULL: true } |
  { L: AttributeValue[] } |
  { M: Record<string, AttributeValue> } |
  { SS: string[] } |
  { NS: string[] } |
  { BS: string[] };

const isBinary = (value: unknown): value is ArrayBufferView | ArrayBuffer =>
  ArrayBuffer.isView(value) || value instanceof ArrayBuffer;

const toBase64 = (value: ArrayBufferView | ArrayBuffer): string =>
  (value instanceof ArrayBuffer
    ? Buffer.from(value)
    : Buffer.from(value.buffer, value.byteOffset, value.byteLength)
  ).toString('base64');

function numberString(value: number | bigint): string {
  if (typeof value === 'bigint') return value.toString();
  if (!Number.isFinite(value)) throw new Error(`Special numeric value ${value} is not allowed`);
  // As the SDK: an integer beyond 2^53 has already lost digits.
  if (value > Number.MAX_SAFE_INTEGER || value < Number.MIN_SAFE_INTEGER) {
    throw new Error(`Number ${value} is outside Number.MAX_SAFE_INTEGER bounds: use a bigint or a string`);
  }
  return value.toString();
}

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * One native value as an attribute value, as `@aws-sdk/util-dynamodb`'s marshall with
 * `removeUndefinedValues: true` (undefined members and functions are left out), B as base64.
 */
export function toAttributeValue(value: unknown): AttributeValue {
  if (value === null) return { NULL: true };
  switch (typeof value) {
    case 'string':
      return { S: value };
    case 'number':
    case 'bigint':
      return { N: numberString(value) };
    case 'boolean':
      return { BOOL: value };
    case 'undefined':
      throw new Error('undefined is only left out inside a map, list or set');
    case 'object':
      break;
    default:
      throw new Error(`Unsupported type passed: ${typeof value}`);
  }
  if (Array.isArray(value)) {
    return { L: value.filter((v) => v !== undefined && typeof v !== 'function').map(toAttributeValue) };
  }
  if (value instanceof Set) return toSet(value);
  if (value instanceof Map) return { M: toAttributeMap(Object.fromEntries(value)) };
  if (isBinary(value)) return { B: toBase64(value) };
  if (isPlainObject(value)) return { M: toAttributeMap(value as Record<string, unknown>) };
  throw new Error(`Unsupported type passed: ${String(value)} (only plain objects are maps)`);
}

function toSet(set: ReadonlySet<unknown>): AttributeValue {
  const members = [...set].filter((v) => v !== undefined);
  const first = members[0];
  if (first === undefined) throw new Error('Pass a non-empty set: DynamoDB has no empty sets');
  if (typeof first === 'number' || typeof first === 'bigint') {
    return { NS: members.map((n) => numberString(n as number | bigint)) };
  }
  if (typeof first === 'string') return { SS: members.map(String) };
  if (isBinary(first)) return { BS: members.map((b) => toBase64(b as ArrayBufferView)) };
  throw new Error('Only Number Set (NS), Binary Set (BS) or String Set (SS) are allowed.');
}

/** A map of attributes (an item, a key, expression values); undefined and function members are left out. */
export function toAttributeMap(item: Readonly<Record<string, unknown>>): Record<string, AttributeValue> {
  const map: Record<string, AttributeValue> = {};
  for (const key in item) {
    const value = item[key];
    if (value !== undefined && typeof value !== 'function') map[key] = toAttributeValue(value);
  }
  return map;
}

function fromBase64(value: string): Uint8Array {
  const buffer = Buffer.from(value, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function fromNumber(value: string): number | bigint {
  const n = Number(value);
  // As the SDK: integers beyond 2^53 come back as bigint rather than rounded.
  if ((n > Number.MAX_SAFE_INTEGER || n < Number.MIN_SAFE_INTEGER) && Number.isFinite(n)) {
    try {
      return BigInt(value);
    } catch {
      throw new Error(`${value} can't be converted to BigInt`);
    }
  }
  return n;
}

/** An attribute value as a native value, as `@aws-sdk/util-dynamodb`'s unmarshall (B as Uint8Array). */
export function fromAttributeValue(value: Readonly<Record<string, unknown>>): unknown {
  for (const [type, v] of Object.entries(value)) {
    if (v === undefined) continue;
    switch (type) {
      case 'NULL':
        return null;
      case 'BOOL':
        return Boolean(v);
      case 'S':
        return v as string;
      case 'N':
        return fromNumber(v as string);
      case 'B':
        return fromBase64(v as string);
      case 'L':
        return (v as Record<string, unknown>[]).map(fromAttributeValue);
      case 'M':
        return fromAttributeMap(v as WireMap);
      case 'SS':
        return new Set(v as string[]);
      case 'NS':
        return new Set((v as string[]).map(fromNumber));
      case 'BS':
        return new Set((v as string[]).map(fromBase64));
      default:
        throw new Error(`Unsupported type passed: ${type}`);
    }
  }
  throw new Error(`No value defined: ${JSON.stringify(value)}`);
}

type WireMap = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

export function fromAttributeMap(map: WireMap): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const key in map) item[key] = fromAttributeValue(map[key] as Record<string, unknown>);
  return item;
}

/** A request of the document client: its lib-dynamodb input, and the DynamoDB operation it becomes. */
export abstract class DocumentCommand<Input extends object, Output extends object> {
  abstract readonly operation: string;
  // Carries the output type for `send` (never set).
  declare readonly outputType?: Output;

  constructor(readonly input: Input) {}
}

export class GetCommand extends DocumentCommand<GetCommandInput, GetCommandOutput> {
  readonly operation = 'GetItem';
}
export class PutCommand extends DocumentCommand<PutCommandInput, PutCommandOutput> {
  readonly operation = 'PutItem';
}
export class UpdateCommand extends DocumentCommand<UpdateCommandInput, UpdateCommandOutput> {
  readonly operation = 'UpdateItem';
}
export class DeleteCommand extends DocumentCommand<DeleteCommandInput, DeleteCommandOutput> {
  readonly operation = 'DeleteItem';
}
export class QueryCommand extends DocumentCommand<QueryCommandInput, QueryCommandOutput> {
  readonly operation = 'Query';
}
export class ScanCommand extends DocumentCommand<ScanCommandInput, ScanCommandOutput> {
  readonly operation = 'Scan';
}

const ATTRIBUTE_MAPS_IN = ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'] as const;
const ATTRIBUTE_MAPS_OUT = ['Item', 'Attributes', 'LastEvaluatedKey'] as const;
// The pre-expression parameters would need their own marshalling; the platform uses expressions only.
const LEGACY_PARAMETERS = ['Expected', 'AttributeUpdates', 'KeyConditions', 'QueryFilter', 'ScanFilter', 'AttributesToGet'];

/** The request body of a command: its input with the native values marshalled. */
export function serializeInput(input: object): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (LEGACY_PARAMETERS.includes(key)) throw new Error(`${key} is not supported by this client: use expressions`);
    body[key] = (ATTRIBUTE_MAPS_IN as readonly string[]).includes(key)
      ? toAttributeMap(value as Record<string, unknown>)
      : value;
  }
  return body;
}

/** A response body with its attribute values as native values. */
export function deserializeOutput(body: Record<string, unknown>): Record<string, unknown> {
  const output: Record<string, unknown> = { ...body };
  for (const key of ATTRIBUTE_MAPS_OUT) {
    const map = body[key];
    if (map !== undefined && map !== null) output[key] = fromAttributeMap(map as WireMap);
  }
  if (Array.isArray(body.Items)) {
    output.Items = (body.Items as WireMap[]).map(fromAttributeMap);
  }
  return output;
}

export type DocumentClientConfig = AwsClientConfig;

/**
 * DynamoDB with native JavaScript values, used like lib-dynamodb's DynamoDBDocumentClient
 * (`send(new GetCommand({...}))`), on the JSON 1.0 protocol.
 */
export class DocumentClient {
  private readonly client: AwsClient;

  constructor(config: DocumentClientConfig = {}) {
    this.client = new AwsClient('dynamodb', config);
  }

  async send<Input extends object, Output extends object>(command: DocumentCommand<Input, Output>): Promise<Output> {
    let response: Awaited<ReturnType<AwsClient['postJson']>>;
    try {
      response = await this.client.postJson(command.operation, 'DynamoDB_20120810', serializeInput(command.input));
    } catch (error) {
      // As the SDK's ConditionalCheckFailedException: the refused item (asked with
      // ReturnValuesOnConditionCheckFailure) rides on the error, here as native values.
      const item = error instanceof AwsServiceError ? error.$details.Item : undefined;
      if (item !== null && typeof item === 'object') Object.assign(error as object, { Item: fromAttributeMap(item as WireMap) });
      throw error;
    }
    const body = jsonBody(response, `DynamoDB ${command.operation}`);
    const output = deserializeOutput(body);
    output.$metadata = response.metadata;
    return output as Output;
  }

  destroy(): void {
    this.client.destroy();
  }
}

/** The same client under lib-dynamodb's name, so a store switches by its import line alone. */
export type DynamoDBDocumentClient = DocumentClient;
