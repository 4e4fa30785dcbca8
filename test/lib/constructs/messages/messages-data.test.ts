import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/config/index.js';
import {
  MessagesData,
  VISIBILITY_TIMEOUT_FACTOR,
  WORKER_TIMEOUT,
} from '../../../../lib/constructs/messages/messages-data.js';
import { TABLE_KEYS } from '../../../../contracts/messages.js';
import { DataStack } from '../../../../lib/stacks/data-stack.js';
import { cdkJsonContext } from '../../support/cdk-app.js';

const config = loadConfig();
/** What the webhooks construct keeps in the same Data stack: its table, its delivery queue and DLQ. */
const WEBHOOKS_DATA = { tables: 1, queues: 2 } as const;

function synthData() {
  const app = new App({ context: cdkJsonContext() });
  const stack = new DataStack(app, 'Test-Data', { config, env: { region: config.platform.region } });
  return { stack, data: stack.messages, template: Template.fromStack(stack) };
}

describe('MessagesData', () => {
  let stack: DataStack;
  let data: MessagesData;
  let template: Template;
  beforeAll(() => {
    ({ stack, data, template } = synthData());
  });

  const logicalId = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);

  it('creates exactly the five tables of TABLE_KEYS, on demand, with PITR, AWS-managed KMS encryption, retained', () => {
    // The Data stack also holds the webhooks' table and queues (test/lib/constructs/webhooks/webhooks.test.ts).
    template.resourceCountIs('AWS::DynamoDB::Table', Object.keys(TABLE_KEYS).length + WEBHOOKS_DATA.tables);
    const tables = template.findResources('AWS::DynamoDB::Table');
    for (const [id, table] of Object.entries(tables)) {
      expect(table.DeletionPolicy, id).toBe('Retain');
      expect(table.UpdateReplacePolicy, id).toBe('Retain');
      expect(table.Properties.BillingMode, id).toBe('PAY_PER_REQUEST');
      expect(table.Properties.PointInTimeRecoverySpecification, id).toEqual({ PointInTimeRecoveryEnabled: true });
      // SSEEnabled without a key or type: KMS with the AWS managed key aws/dynamodb.
      expect(table.Properties.SSESpecification, id).toEqual({ SSEEnabled: true });
      expect(table.Properties.DeletionProtectionEnabled, id).toBe(true);
    }
  });

  it('keys every table as the runtime contract says, with TTL where the contract has one', () => {
    for (const [name, keys] of Object.entries(TABLE_KEYS)) {
      const table = template.toJSON().Resources[logicalId(data.tables[name as keyof typeof TABLE_KEYS])];
      expect(table, name).toBeDefined();
      expect(table.Properties.KeySchema, name).toEqual([{ AttributeName: keys.partitionKey, KeyType: 'HASH' }]);
      const ttl = 'ttl' in keys ? keys.ttl : undefined;
      expect(table.Properties.TimeToLiveSpecification, name).toEqual(
        ttl ? { AttributeName: ttl, Enabled: true } : undefined,
      );
    }
  });

  it('indexes API keys by account (byAccount: accountId, keyId; projection ALL)', () => {
    const idx = TABLE_KEYS.apiKeys.accountIndex;
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({
        KeySchema: [{ AttributeName: TABLE_KEYS.apiKeys.partitionKey, KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [
          {
            IndexName: idx.name,
            KeySchema: [
              { AttributeName: idx.partitionKey, KeyType: 'HASH' },
              { AttributeName: idx.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    });
  });

  it('indexes messages by account and time for the message log (byAccount: accountId, createdAt; projection ALL)', () => {
    const idx = TABLE_KEYS.messages.accountIndex;
    const table = template.toJSON().Resources[logicalId(data.tables.messages)];
    expect(table.Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: idx.name,
        KeySchema: [
          { AttributeName: idx.partitionKey, KeyType: 'HASH' },
          { AttributeName: idx.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ]);
    expect(table.Properties.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: 'accountId', AttributeType: 'S' },
        { AttributeName: 'createdAt', AttributeType: 'S' },
      ]),
    );
  });

  it('queues messages with SSE, a redrive to the DLQ after maxReceiveCount receives, and 6x the worker timeout', () => {
    expect(config.messages.maxReceiveCount).toBe(5);
    template.resourceCountIs('AWS::SQS::Queue', 2 + WEBHOOKS_DATA.queues);
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      VisibilityTimeout: WORKER_TIMEOUT.toSeconds() * VISIBILITY_TIMEOUT_FACTOR,
      RedrivePolicy: {
        maxReceiveCount: 5,
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(data.deadLetterQueue), 'Arn'] },
      },
    });
    expect(WORKER_TIMEOUT.toSeconds() * VISIBILITY_TIMEOUT_FACTOR).toBe(180);
    expect(data.workerTimeout.toSeconds()).toBe(30);
  });

  it('keeps dead letters 14 days, encrypted, and retains both queues', () => {
    const dlq = template.toJSON().Resources[logicalId(data.deadLetterQueue)];
    expect(dlq.Properties).toEqual({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    expect(dlq.DeletionPolicy).toBe('Retain');
    expect(template.toJSON().Resources[logicalId(data.queue)].DeletionPolicy).toBe('Retain');
  });

  it('denies any non-TLS access to both queues (enforceSSL)', () => {
    for (const queue of [data.queue, data.deadLetterQueue]) {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: logicalId(queue) }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sqs:*',
              Principal: { AWS: '*' },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it('takes maxReceiveCount from the config and sizes visibility from the worker timeout it is given', () => {
    const app = new App();
    const stack = new Stack(app, 'Custom');
    const custom = loadConfig({ messages: { maxReceiveCount: 7 } });
    new MessagesData(stack, 'Messages', {
      config: custom,
      workerTimeout: Duration.seconds(20),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const t = Template.fromStack(stack);
    t.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 120,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 7 }),
    });
    // Not retained: no deletion protection either (a throwaway environment).
    for (const table of Object.values(t.findResources('AWS::DynamoDB::Table'))) {
      expect(table.DeletionPolicy).toBe('Delete');
      expect(table.Properties.DeletionProtectionEnabled).toBe(false);
    }
  });
});
