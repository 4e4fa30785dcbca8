import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { GetQueueAttributesCommand, type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../contracts/messages.js';
import { createDocumentClient } from '../../lambda/shared/dynamodb.js';
import { loadConfig } from '../../lib/config/index.js';
import { createMessagesFunctions } from '../../lib/constructs/messages/messages-functions.js';
import { MessagesData } from '../../lib/constructs/messages/messages-data.js';
import { LOCAL_AWS } from '../../local/emulators.js';
import { type LocalPlatform, startLocalPlatform } from '../../local/platform.js';
import { cdkJsonContext } from '../lib/support/cdk-app.js';
import { ECHO_MARKER } from '../support/processors/echo-processor.js';
import { send } from '../support/platform.js';
import { CloudAssembly, type SynthesizedFunction } from './support/cdk-out.js';
import { sqsEvent, sqsRecord } from './support/events.js';
import { LambdaProcess } from './support/lambda-process.js';
import { lambdaArnOf, lambdaRuntimeEnv, localNetworkEnv } from './support/local-resources.js';

// The worker bundle synthesized with an operator's processor (the config's `processor`, here the
// echo fixture), invoked as Lambda would with a message the local platform accepted: the bundle
// runs that processor and keeps its result on the record. Built here, not taken from cdk.out: the
// app's worker carries the default processor, which leaves nothing to observe.
const STACK = 'ProcessorBundle';
let outdir: string;
let workDir: string;
let worker: SynthesizedFunction;
let platform: LocalPlatform;
let lambda: LambdaProcess;
let sqs: SQSClient;

beforeAll(async () => {
  const config = loadConfig({ processor: 'test/support/processors/echo-processor.ts' });
  outdir = mkdtempSync(join(tmpdir(), 'processor-bundle-out-'));
  const app = new App({ outdir, context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [STACK] } });
  const stack = new Stack(app, STACK, { env: { account: '123456789012', region: config.platform.region } });
  const functions = createMessagesFunctions(stack, { config, data: new MessagesData(stack, 'Data', { config }) });
  app.synth();
  const workerId = stack.getLogicalId(functions.worker.function.node.defaultChild as CfnResource);
  const found = new CloudAssembly(outdir).functions().find((fn) => fn.logicalId === workerId);
  if (!found) throw new Error(`no worker function ${workerId} in ${outdir}`);
  worker = found;

  platform = await startLocalPlatform({ port: 0, controlPort: 0, edgePort: 0, worker: false });
  sqs = new SQSClient({ ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
  // Lambda's /var/task: the asset's files only, away from the repository's node_modules.
  workDir = mkdtempSync(join(tmpdir(), 'processor-bundle-'));
  const codeDir = join(workDir, basename(worker.codeDir));
  cpSync(worker.codeDir, codeDir, { recursive: true });
  const declared = Object.fromEntries(
    Object.entries(worker.environment).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  lambda = await LambdaProcess.start({
    label: 'worker',
    codeDir,
    handler: worker.handler,
    timeoutSeconds: worker.timeoutSeconds,
    env: {
      ...lambdaRuntimeEnv(worker, codeDir),
      ...declared,
      [ENV.messagesTable]: platform.tables.messages,
      [ENV.rateLimitsTable]: platform.tables.rateLimits,
      [ENV.queueUrl]: platform.queues.queueUrl,
      ...localNetworkEnv({
        dynamodb: platform.endpoints.dynamodb,
        sqs: platform.endpoints.sqs,
        stub: 'http://127.0.0.1:9',
        stubHost: 'http://127.0.0.1:9',
        dns: '127.0.0.1:9',
      }),
    },
    invokedFunctionArn: lambdaArnOf(worker.region, worker.stack, worker.logicalId),
  });
}, 180_000);

afterAll(async () => {
  await lambda?.stop();
  sqs?.destroy();
  await platform?.stop();
  for (const dir of [workDir, outdir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('worker bundle with the operator\'s processor', () => {
  it('runs the bundled processor on a message from fauxqs and keeps its result; a redelivery does not run it again', async () => {
    const answer = await send(platform, platform.demoKeys.pro, 'Hello from the processor bundle');
    expect(answer.status).toBe(202);
    const id = answer.body.id as string;
    const { Messages: received = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: platform.queues.queueUrl,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 2,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const message = received[0] as Message;
    expect(JSON.parse(message.Body ?? '{}')).toMatchObject({ id });
    const queueArn = (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: platform.queues.queueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes?.QueueArn as string;
    const event = sqsEvent(sqsRecord(message, queueArn, worker.region));

    expect(await lambda.invoke<SQSBatchResponse>(event)).toEqual({ batchItemFailures: [] });
    const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
    const read = new GetCommand({ TableName: platform.tables.messages, Key: { id }, ConsistentRead: true });
    const stored = async () => (await documents.send(read)).Item;
    const first = await stored();
    expect(first).toMatchObject({
      status: 'processed',
      attempts: 1,
      result: { marker: ECHO_MARKER, echoed: 'Hello from the processor bundle', attempt: 1 },
    });

    // The same record again (a redelivery): final already, so nothing runs and nothing changes.
    expect(await lambda.invoke<SQSBatchResponse>(event)).toEqual({ batchItemFailures: [] });
    expect(await stored()).toEqual(first);
    documents.destroy();
  }, 60_000);
});
