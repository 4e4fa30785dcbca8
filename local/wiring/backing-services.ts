import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { dataPlane, traced } from '../../lambda/shared/aws-clients.js';
import { createDocumentClient } from '../../lambda/shared/dynamodb.js';
import type { PlatformConfig } from '../../lib/config/index.js';
import {
  createQueues,
  createTables,
  LOCAL_AWS,
  type LocalQueues,
  type RestartableService,
  type RunningService,
  startDynamoDb,
  startSqs,
} from '../emulators.js';

/** The emulated DynamoDB and SQS, their tables and queues, and the SDK clients the wiring shares. */
export interface BackingServices {
  readonly dynamodb: RunningService;
  readonly sqs: RestartableService;
  readonly queues: LocalQueues;
  readonly documentClient: DynamoDBDocumentClient;
  /** The send function's SQS client, as the Lambda builds it. */
  readonly queueClient: SQSClient;
  /** SQS for what only the local platform does (long polls, redrive). */
  readonly sqsClient: SQSClient;
  /** Destroys the SDK clients (after the services that use them have stopped). */
  destroyClients(): void;
}

/**
 * dynalite and fauxqs on loopback, with the platform's tables and queues. Each service is added to
 * `services` as soon as it runs, so a failure further on stops it.
 */
export async function startBackingServices(
  options: {
    readonly dataDir?: string;
    readonly visibilityTimeoutSeconds?: number;
    /** Puts something between the functions and dynalite (a test's slowed proxy); answers its endpoint. */
    readonly dynamoDbFront?: (endpoint: string) => Promise<string>;
  },
  config: PlatformConfig,
  services: RunningService[],
): Promise<BackingServices> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const dynamodb = await startDynamoDb(options.dataDir ? { path: join(options.dataDir, 'dynamodb') } : {});
  services.push(dynamodb);
  const sqs = await startSqs();
  services.push(sqs);
  await createTables(dynamodb.endpoint);
  const queues = await createQueues(sqs.endpoint, {
    maxReceiveCount: config.messages.maxReceiveCount,
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 2,
  });

  const endpoint = options.dynamoDbFront ? await options.dynamoDbFront(dynamodb.endpoint) : dynamodb.endpoint;
  const documentClient = createDocumentClient({ ...LOCAL_AWS, endpoint });
  // The send function's client, as the Lambda builds it; another for what only the local platform
  // does (long polls, redrive), without the request path's 2 s attempt timeout.
  const queueClient = traced(new SQSClient({ ...dataPlane(), ...LOCAL_AWS, endpoint: sqs.endpoint }));
  const sqsClient = new SQSClient({ ...LOCAL_AWS, endpoint: sqs.endpoint });
  return {
    dynamodb,
    sqs,
    queues,
    documentClient,
    queueClient,
    sqsClient,
    destroyClients: () => {
      documentClient.destroy();
      sqsClient.destroy();
      queueClient.destroy();
    },
  };
}
