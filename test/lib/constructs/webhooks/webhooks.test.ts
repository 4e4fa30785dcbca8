import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CfnResource, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_DELIVERY_SOURCE, WEBHOOK_ENV } from '../../../../contracts/webhooks.js';
import { buildApp, type PlatformApp } from '../../../../lib/app.js';
import type { PlatformFunction } from '../../../../lib/constructs/shared/platform-function.js';
import { cdkJsonContext, type PluginReport, readNagReports, SKIP_BUNDLING } from '../../support/cdk-app.js';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** Every Allow statement of a function's role, with its actions sorted. */
function statementsOf(stack: Stack, fn: PlatformFunction): Array<{ actions: string[]; resource: string }> {
  const template = Template.fromStack(stack);
  const roleId = stack.getLogicalId(fn.role.node.defaultChild as CfnResource);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
    (p.Properties.Roles as Array<{ Ref?: string }>).some((r) => r.Ref === roleId),
  );
  return policies
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
    .filter((s) => s.Effect === 'Allow')
    .map((s) => ({
      actions: (Array.isArray(s.Action) ? s.Action : [s.Action]).sort(),
      resource: JSON.stringify(s.Resource),
    }));
}

const webhookStatements = (stack: Stack, fn: PlatformFunction) =>
  statementsOf(stack, fn).filter((s) => /Webhooks/.test(s.resource));

describe('webhooks infrastructure (in the app, cdk-nag on)', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-webhooks-'));
  let platform: PlatformApp;
  let reports: PluginReport[];

  beforeAll(() => {
    platform = buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING }, outdir });
    platform.app.synth();
    reports = readNagReports(outdir);
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('keeps the table and the queues in the stateful stack: retained, encrypted, TLS only, a DLQ after 5 receives', () => {
    const data = Template.fromStack(platform.dataStack);
    data.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
      }),
    });
    const queues = data.findResources('AWS::SQS::Queue');
    const delivery = Object.entries(queues).find(([id]) => /WebhooksDeliveryQueue/.test(id));
    const dlq = Object.entries(queues).find(([id]) => /WebhooksDeliveryDeadLetterQueue/.test(id));
    expect(delivery?.[1].Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: WEBHOOK_DELIVERY_SOURCE.visibilityTimeoutSeconds,
      RedrivePolicy: { maxReceiveCount: 5, deadLetterTargetArn: { 'Fn::GetAtt': [dlq?.[0], 'Arn'] } },
    });
    expect(dlq?.[1].Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
  });

  it('runs the delivery function on the queue with partial batch responses, and alarms on the DLQ to the alarm topic', () => {
    const api = Template.fromStack(platform.apiStack);
    const { delivery, deadLetterAlarm } = platform.apiStack.webhooks;
    const fnId = platform.apiStack.getLogicalId(delivery.function.node.defaultChild as CfnResource);
    api.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId },
      BatchSize: WEBHOOK_DELIVERY_SOURCE.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    api.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: WEBHOOK_DELIVERY_SOURCE.functionTimeoutSeconds,
      Environment: { Variables: Match.objectLike({ [WEBHOOK_ENV.webhooksTable]: Match.anyValue() }) },
    });
    const alarmId = platform.apiStack.getLogicalId(deadLetterAlarm.node.defaultChild as CfnResource);
    const alarm = api.toJSON().Resources[alarmId].Properties;
    expect(alarm).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
    expect(JSON.stringify(alarm.Dimensions)).toMatch(/WebhooksDeliveryDeadLetterQueue/);
    expect(JSON.stringify(alarm.AlarmActions)).toMatch(/Operations/);
  });

  it('grants each function exactly what it does with the webhooks table and queue', () => {
    const { apiStack, dashboardStack } = platform;
    const table = (s: { resource: string }) => /WebhooksTable/.test(s.resource);
    const queue = (s: { resource: string }) => /WebhooksDeliveryQueue/.test(s.resource);
    const delivery = webhookStatements(apiStack, apiStack.webhooks.delivery);
    expect(delivery.filter(table).flatMap((s) => s.actions).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
    // The event source's consumer actions, and the next hop or retry of a job.
    expect(delivery.filter(queue).flatMap((s) => s.actions).sort()).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:SendMessage',
    ]);

    const worker = webhookStatements(apiStack, apiStack.messages.functions.worker);
    expect(worker.filter(table).flatMap((s) => s.actions)).toEqual(['dynamodb:Query']);
    expect(worker.filter(queue).flatMap((s) => s.actions)).toEqual(['sqs:SendMessage']);

    const control = webhookStatements(dashboardStack, dashboardStack.dashboard.controlFunction);
    expect(control.filter(table).flatMap((s) => s.actions).sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    expect(control.filter(queue).flatMap((s) => s.actions)).toEqual(['sqs:SendMessage']);
    // The dashboard's message pages read one message by id, and the log by the account index only.
    const messagesTable = /GetAttMessages[0-9A-F]{8}Arn[0-9A-F]{8}"\}\}(,"\/index\/byAccount")?/g;
    const grants = statementsOf(dashboardStack, dashboardStack.dashboard.controlFunction).flatMap((s) =>
      [...s.resource.matchAll(messagesTable)].map((m) => `${s.actions.join(',')} ${m[1] ? 'index byAccount' : 'table'}`),
    );
    expect(grants.sort()).toEqual(['dynamodb:GetItem table', 'dynamodb:Query index byAccount']);
  });

  it('is cdk-nag clean: only the house function findings (X-Ray on "*", Node.js 22), acknowledged with reasons', () => {
    const findings = reports
      .filter((r) => r.pluginName === 'AwsSolutions')
      .flatMap((r) => [...r.violations, ...(r.suppressedViolations ?? [])])
      .filter((v) => (v.violatingConstructs ?? []).some((c) => /\/Webhooks\//.test(c.constructPath)));
    expect(findings.every((v) => v.acknowledgedId !== undefined), 'unacknowledged webhooks finding').toBe(true);
    const acks = [...new Set(findings.map((v) => `${v.ruleName} @ ${v.acknowledgedAt}`))].sort();
    expect(acks).toEqual([
      'AwsSolutions-IAM5[Resource::*] @ MessagesPlatform-Api/Webhooks/Delivery/Role',
      'AwsSolutions-L1 @ MessagesPlatform-Api/Webhooks/Delivery/Function',
    ]);
  });
});
