import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ListTablesCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, PutBucketCorsCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { buildApp } from 'fauxqs';
import { OWNERS_TABLE_KEYS } from '../contracts/control-api.js';
import { DOMAIN_TABLE_KEYS, SITE_UPLOAD_CORS } from '../contracts/domains.js';
import { TABLE_KEYS } from '../contracts/messages.js';
import { teachReturnValuesOnConditionCheckFailure } from './dynalite-return-values.js';

/** Emulators answer any credentials; these keep the SDK from looking for real ones. */
export const LOCAL_AWS = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

/** s3rver accepts its own default key only (it checks the key id, not the signature). */
export const LOCAL_S3 = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  forcePathStyle: true,
} as const;

/** The site bucket locally (the deploys of every project, as the Sites bucket on AWS). */
export const LOCAL_SITE_BUCKET = 'sites';

export interface RunningService {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * dynalite (DynamoDB) on 127.0.0.1; in memory, or persisted in LevelDB under `path`. It answers
 * ReturnValuesOnConditionCheckFailure as DynamoDB does (./dynalite-return-values.ts).
 */
export async function startDynamoDb(options: { port?: number; path?: string } = {}): Promise<RunningService> {
  teachReturnValuesOnConditionCheckFailure();
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.path ? { path: options.path } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** A service that can also be taken off the network and brought back with its state. */
export interface RestartableService extends RunningService {
  /** Closes the port and every open connection, as if the service were down; its state is kept. */
  pause(): Promise<void>;
  /** Listens again on the same port, with the state it had when paused. */
  resume(): Promise<void>;
}

/**
 * fauxqs (SQS) on 127.0.0.1 (its CLI would bind every interface). `pause`/`resume` take it off
 * the network and back on the same port, with the same queues and messages.
 */
export async function startSqs(options: { port?: number } = {}): Promise<RestartableService> {
  const app = buildApp({ logger: false });
  await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  let paused = false;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    pause: async () => {
      if (paused) return;
      paused = true;
      await new Promise<void>((resolve) => {
        app.server.close(() => resolve());
        app.server.closeAllConnections();
      });
    },
    resume: async () => {
      if (!paused) return;
      await new Promise<void>((resolve, reject) => {
        app.server.once('error', reject);
        app.server.listen(port, '127.0.0.1', () => {
          app.server.off('error', reject);
          resolve();
        });
      });
      paused = false;
    },
    stop: async () => {
      // Fastify closes the server itself: give it a listening one.
      if (paused) {
        await new Promise<void>((resolve) => app.server.listen(port, '127.0.0.1', () => resolve()));
        paused = false;
      }
      await app.close();
    },
  };
}

export const LOCAL_TABLE_NAMES = {
  apiKeys: 'ApiKeys',
  accounts: 'Accounts',
  rateLimits: 'RateLimits',
  messages: 'Messages',
  idempotency: 'Idempotency',
  projects: 'Projects',
  domains: 'Domains',
  owners: 'Owners',
} as const;

/** The tables of the data stack, from the same key definitions the construct uses. */
export async function createTables(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ ...LOCAL_AWS, endpoint });
  const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
  const simple = (name: string, partitionKey: string): CreateTableCommandInput => ({
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: partitionKey, AttributeType: 'S' }],
    KeySchema: [{ AttributeName: partitionKey, KeyType: 'HASH' }],
  });
  const withIndex = (
    name: string,
    partitionKey: string,
    index: { readonly name: string; readonly partitionKey: string; readonly sortKey: string },
  ): CreateTableCommandInput => ({
    ...simple(name, partitionKey),
    AttributeDefinitions: [
      { AttributeName: partitionKey, AttributeType: 'S' },
      { AttributeName: index.partitionKey, AttributeType: 'S' },
      { AttributeName: index.sortKey, AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  });
  const { projects, domains } = DOMAIN_TABLE_KEYS;
  const definitions: CreateTableCommandInput[] = [
    withIndex(LOCAL_TABLE_NAMES.apiKeys, TABLE_KEYS.apiKeys.partitionKey, TABLE_KEYS.apiKeys.accountIndex),
    simple(LOCAL_TABLE_NAMES.accounts, TABLE_KEYS.accounts.partitionKey),
    simple(LOCAL_TABLE_NAMES.rateLimits, TABLE_KEYS.rateLimits.partitionKey),
    withIndex(LOCAL_TABLE_NAMES.messages, TABLE_KEYS.messages.partitionKey, TABLE_KEYS.messages.accountIndex),
    simple(LOCAL_TABLE_NAMES.idempotency, TABLE_KEYS.idempotency.partitionKey),
    withIndex(LOCAL_TABLE_NAMES.projects, projects.partitionKey, projects.accountIndex),
    withIndex(LOCAL_TABLE_NAMES.domains, domains.partitionKey, domains.projectIndex),
    simple(LOCAL_TABLE_NAMES.owners, OWNERS_TABLE_KEYS.partitionKey),
  ];
  for (const definition of definitions) {
    if (!existing.has(definition.TableName as string)) await client.send(new CreateTableCommand(definition));
  }
  client.destroy();
}

export interface LocalQueues {
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
}

/** The messages queue and its DLQ, with the same redrive policy as on AWS. */
export async function createQueues(
  endpoint: string,
  options: { maxReceiveCount: number; visibilityTimeoutSeconds: number },
): Promise<LocalQueues> {
  const client = new SQSClient({ ...LOCAL_AWS, endpoint });
  const dlq = await client.send(
    new CreateQueueCommand({ QueueName: 'messages-dlq', Attributes: { MessageRetentionPeriod: String(14 * 86_400) } }),
  );
  const dlqArn = (
    await client.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes?.QueueArn;
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: 'messages',
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: options.maxReceiveCount }),
      },
    }),
  );
  client.destroy();
  return { queueUrl: queue.QueueUrl as string, deadLetterQueueUrl: dlq.QueueUrl as string };
}

/**
 * s3rver (S3) on 127.0.0.1, keeping its objects under `directory`, with the site bucket. It does
 * not check signatures: the signing and expiry rules of presigned uploads are unit-tested
 * (test/lambda/projects/s3-site-storage.test.ts).
 */
export async function startS3(options: { directory: string; port?: number }): Promise<RunningService> {
  const server = new S3rver({ port: options.port ?? 0, address: '127.0.0.1', silent: true, directory: options.directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ ...LOCAL_S3, endpoint });
  try {
    await client.send(new HeadBucketCommand({ Bucket: LOCAL_SITE_BUCKET }));
  } catch {
    await client.send(new CreateBucketCommand({ Bucket: LOCAL_SITE_BUCKET }));
  } finally {
    client.destroy();
  }
  return { endpoint, stop: () => server.close() };
}

/** Lets pages of these origins (the local dashboard) PUT deploy files with presigned URLs, as the Sites bucket's CORS does on AWS. */
export async function allowSiteUploads(endpoint: string, origins: readonly string[]): Promise<void> {
  const client = new S3Client({ ...LOCAL_S3, endpoint });
  try {
    await client.send(
      new PutBucketCorsCommand({
        Bucket: LOCAL_SITE_BUCKET,
        CORSConfiguration: {
          CORSRules: [
            {
              AllowedOrigins: [...origins],
              AllowedMethods: [...SITE_UPLOAD_CORS.allowedMethods],
              AllowedHeaders: [...SITE_UPLOAD_CORS.allowedHeaders],
              ExposeHeaders: [...SITE_UPLOAD_CORS.exposedHeaders],
              MaxAgeSeconds: SITE_UPLOAD_CORS.maxAgeSeconds,
            },
          ],
        },
      }),
    );
  } finally {
    client.destroy();
  }
}
