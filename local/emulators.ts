import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, PutBucketCorsCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { buildApp } from 'fauxqs';
import { OWNERS_TABLE_KEYS } from '../contracts/control-api.js';
import { DOMAIN_TABLE_KEYS, SITE_UPLOAD_CORS } from '../contracts/domains.js';
import { TABLE_KEYS } from '../contracts/messages.js';
import { WEBHOOK_TABLE_KEYS } from '../contracts/webhooks.js';
import { teachReturnValuesOnConditionCheckFailure } from './dynalite-return-values.js';
import { listenOnLoopback } from './loopback.js';

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

/** dynalite (DynamoDB) on 127.0.0.1, in memory or in LevelDB under `path` (see ./dynalite-return-values.ts). */
export async function startDynamoDb(options: { path?: string } = {}): Promise<RunningService> {
  teachReturnValuesOnConditionCheckFailure();
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, path: options.path });
  const { url, stop } = await listenOnLoopback(server, 0);
  return { endpoint: url, stop };
}

/** fauxqs (SQS) on 127.0.0.1 (its CLI would bind every interface); `pause` takes it off the network, keeping its state. */
export async function startSqs() {
  const app = buildApp({ logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const listen = async () => {
    app.server.listen(port, '127.0.0.1');
    await once(app.server, 'listening');
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    pause: async () => {
      if (!app.server.listening) return;
      await new Promise<void>((resolve) => {
        app.server.close(() => resolve());
        app.server.closeAllConnections();
      });
    },
    resume: async () => {
      if (!app.server.listening) await listen();
    },
    stop: async () => {
      // Fastify closes the server itself: give it a listening one.
      if (!app.server.listening) await listen();
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
  webhooks: 'Webhooks',
} as const;

interface TableKeys {
  readonly partitionKey: string;
  readonly sortKey?: string;
  readonly index?: { readonly name: string; readonly partitionKey: string; readonly sortKey: string };
}

/** The tables of the data stacks, from the same key definitions the constructs use. */
const TABLES: Record<keyof typeof LOCAL_TABLE_NAMES, TableKeys> = {
  apiKeys: { partitionKey: TABLE_KEYS.apiKeys.partitionKey, index: TABLE_KEYS.apiKeys.accountIndex },
  accounts: TABLE_KEYS.accounts,
  rateLimits: TABLE_KEYS.rateLimits,
  messages: { partitionKey: TABLE_KEYS.messages.partitionKey, index: TABLE_KEYS.messages.accountIndex },
  idempotency: TABLE_KEYS.idempotency,
  projects: { partitionKey: DOMAIN_TABLE_KEYS.projects.partitionKey, index: DOMAIN_TABLE_KEYS.projects.accountIndex },
  domains: { partitionKey: DOMAIN_TABLE_KEYS.domains.partitionKey, index: DOMAIN_TABLE_KEYS.domains.projectIndex },
  owners: OWNERS_TABLE_KEYS,
  webhooks: WEBHOOK_TABLE_KEYS,
};

export async function createTables(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ ...LOCAL_AWS, endpoint });
  const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
  const hashRange = (partitionKey: string, sortKey?: string) => [
    { AttributeName: partitionKey, KeyType: 'HASH' as const },
    ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' as const }] : []),
  ];
  for (const [key, { partitionKey, sortKey, index }] of Object.entries(TABLES) as [keyof typeof TABLES, TableKeys][]) {
    if (existing.has(LOCAL_TABLE_NAMES[key])) continue;
    const attributes = new Set([partitionKey, sortKey, index?.partitionKey, index?.sortKey].filter((a) => a));
    await client.send(new CreateTableCommand({
      TableName: LOCAL_TABLE_NAMES[key],
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: hashRange(partitionKey, sortKey),
      ...(index && {
        GlobalSecondaryIndexes: [
          { IndexName: index.name, KeySchema: hashRange(index.partitionKey, index.sortKey), Projection: { ProjectionType: 'ALL' } },
        ],
      }),
    }));
  }
  client.destroy();
}

/** A queue and its DLQ (`<name>-dlq`), with the redrive policy and DLQ retention of the constructs. */
export async function createQueue(
  client: SQSClient,
  name: string,
  options: { maxReceiveCount: number; visibilityTimeoutSeconds: number },
) {
  const arnOf = async (url: string | undefined) =>
    (await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes
      ?.QueueArn as string;
  const dlq = await client.send(
    new CreateQueueCommand({ QueueName: `${name}-dlq`, Attributes: { MessageRetentionPeriod: String(14 * 86_400) } }),
  );
  const redrive = { deadLetterTargetArn: await arnOf(dlq.QueueUrl), maxReceiveCount: options.maxReceiveCount };
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify(redrive),
      },
    }),
  );
  const queueUrl = queue.QueueUrl as string;
  return { queueUrl, queueArn: await arnOf(queueUrl), deadLetterQueueUrl: dlq.QueueUrl as string };
}

/** s3rver (S3) on 127.0.0.1 with the site bucket; it checks no signatures (s3-site-storage.test.ts does). */
export async function startS3(directory: string) {
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ ...LOCAL_S3, endpoint });
  await client.send(new HeadBucketCommand({ Bucket: LOCAL_SITE_BUCKET })).catch(() =>
    client.send(new CreateBucketCommand({ Bucket: LOCAL_SITE_BUCKET })));
  return {
    endpoint,
    stop: async () => {
      client.destroy();
      await server.close();
    },
    /** Lets pages of these origins (the local dashboard) PUT deploy files, as the Sites bucket's CORS does on AWS. */
    allowUploadsFrom: async (origins: readonly string[]) => {
      const rule = {
        AllowedOrigins: [...origins],
        AllowedMethods: [...SITE_UPLOAD_CORS.allowedMethods],
        AllowedHeaders: [...SITE_UPLOAD_CORS.allowedHeaders],
        ExposeHeaders: [...SITE_UPLOAD_CORS.exposedHeaders],
        MaxAgeSeconds: SITE_UPLOAD_CORS.maxAgeSeconds,
      };
      const CORSConfiguration = { CORSRules: [rule] };
      await client.send(new PutBucketCorsCommand({ Bucket: LOCAL_SITE_BUCKET, CORSConfiguration }));
    },
  };
}
