import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { dataPlane, traced } from '../../lambda/shared/aws-clients.js';
import { allItems, createDocumentClient } from '../../lambda/shared/dynamodb.js';
import type { Clock } from '../../lambda/shared/clock.js';
import type { PlatformConfig } from '../../lib/config/index.js';
import { createQueue, createTables, LOCAL_AWS, startDynamoDb, startSqs } from '../emulators.js';
import type { LocalPlatformOptions } from '../options.js';

export type BackingServices = Awaited<ReturnType<typeof startBackingServices>>;

/** What each part of the wiring reads; it adds what it runs to `services`, so a failure further on stops it. */
export interface Start {
  readonly options: LocalPlatformOptions;
  readonly config: PlatformConfig;
  readonly clock: Clock;
  readonly services: { stop(): Promise<void> }[];
}

export interface Wiring extends Start {
  readonly backing: BackingServices;
}

/** dynalite and fauxqs on loopback, with the platform's tables and queues, and the SDK clients the wiring shares. */
export async function startBackingServices({ options, config, services }: Start) {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const dynamodb = await startDynamoDb(options.dataDir ? { path: join(options.dataDir, 'dynamodb') } : {});
  services.push(dynamodb);
  const sqs = await startSqs();
  services.push(sqs);
  await createTables(dynamodb.endpoint);

  const endpoint = options.dynamoDbFront ? await options.dynamoDbFront(dynamodb.endpoint) : dynamodb.endpoint;
  const documentClient = createDocumentClient({ ...LOCAL_AWS, endpoint });
  // The send function's client, as the Lambda builds it; another for what only the local platform
  // does (long polls, redrive), without the request path's 2 s attempt timeout.
  const queueClient = traced(new SQSClient({ ...dataPlane(), ...LOCAL_AWS, endpoint: sqs.endpoint }));
  const sqsClient = new SQSClient({ ...LOCAL_AWS, endpoint: sqs.endpoint });
  const queues = await createQueue(sqsClient, 'messages', {
    maxReceiveCount: config.messages.maxReceiveCount,
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 2,
  });
  // Destroyed once every part that uses them has stopped.
  services.push({ stop: async () => [documentClient, sqsClient, queueClient].forEach((client) => client.destroy()) });
  return { dynamodb, sqs, queues, documentClient, queueClient, sqsClient };
}

/** Every item of a table, page by page: what the local platform rebuilds its in-memory state from with --data. */
export function scanAll(client: DynamoDBDocumentClient, tableName: string): Promise<unknown[]> {
  return allItems(paginateScan({ client }, { TableName: tableName }));
}
