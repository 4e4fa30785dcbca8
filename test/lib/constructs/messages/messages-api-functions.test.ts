import type { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlatformApp } from '../../../../lib/app.js';
import type { PlatformConfig } from '../../../../lib/config/index.js';
import type { MessagesApi } from '../../../../lib/constructs/messages/messages-api.js';
import { USAGE_IDENTIFIERS } from '../../../../lib/constructs/messages/usage-plan-backstop.js';
import { ENV } from '../../../../contracts/messages.js';
import { WEBHOOK_ENV } from '../../../../contracts/webhooks.js';
import { actionsOf, apiStackOfTheApp, type ApiStackOfTheApp, type Json } from './messages-api.fixture.js';

// MessagesApi in the app: its functions and what their roles may do.

describe('MessagesApi (in the ApiStack of the app)', () => {
  let platform: PlatformApp;
  let config: PlatformConfig;
  let stack: Stack;
  let api: MessagesApi;
  let template: Template;
  let resources: Record<string, Json>;
  let idOf: ApiStackOfTheApp['idOf'];
  let fnId: ApiStackOfTheApp['fnId'];
  let fnProps: ApiStackOfTheApp['fnProps'];
  let statementsOf: ApiStackOfTheApp['statementsOf'];
  let allowedActions: ApiStackOfTheApp['allowedActions'];

  beforeAll(() => {
    ({ platform, config, stack, api, template, resources, idOf, fnId, fnProps, statementsOf, allowedActions } =
      apiStackOfTheApp());
  });

  describe('functions', () => {
    it('runs every Lambda function on Node.js 22, arm64, with active tracing and its own log group', () => {
      const functions = template.findResources('AWS::Lambda::Function');
      // The five of MessagesApi and the webhooks' delivery function (lib/constructs/webhooks).
      expect(Object.keys(functions)).toHaveLength(6);
      for (const [id, fn] of Object.entries(functions)) {
        expect(fn.Properties.Runtime, id).toBe('nodejs22.x');
        expect(fn.Properties.Architectures, id).toEqual(['arm64']);
        expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
        expect(fn.Properties.Handler, id).toBe('index.handler');
        expect(fn.Properties.LoggingConfig.LogGroup.Ref, id).toBeDefined();
        expect(fn.Properties.Environment.Variables, id).toMatchObject({
          POWERTOOLS_METRICS_NAMESPACE: 'MessagesPlatform',
          POWERTOOLS_SERVICE_NAME: expect.any(String),
          NODE_OPTIONS: '--enable-source-maps',
        });
      }
      for (const group of Object.values(template.findResources('AWS::Logs::LogGroup'))) {
        expect(group.Properties.RetentionInDays).toBeGreaterThan(0);
        // API Gateway's execution logs and WAF's logs go with the stack (docs/operators/teardown.md).
        const name = JSON.stringify(group.Properties.LogGroupName ?? '');
        const goesWithStack = name.includes('API-Gateway-Execution-Logs_') || name.includes('aws-waf-logs-');
        expect(group.DeletionPolicy).toBe(goesWithStack ? 'Delete' : 'Retain');
      }
    });

    it('sizes the functions: 512 MB, 10 s, and the worker 30 s', () => {
      for (const name of ['authorizer', 'sendMessage', 'getMessage', 'fallback', 'worker'] as const) {
        expect(fnProps(name).MemorySize, name).toBe(512);
        expect(fnProps(name).Timeout, name).toBe(name === 'worker' ? 30 : 10);
      }
    });

    it('gives each function exactly the environment of the runtime contract', () => {
      const base = ['POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'NODE_OPTIONS'];
      const expected: Record<keyof MessagesApi['functions'], string[]> = {
        authorizer: [ENV.apiKeysTable, ENV.limitsConfig, ENV.keyCacheSeconds, ENV.pooledUsageKeys],
        sendMessage: [
          ENV.rateLimitsTable,
          ENV.messagesTable,
          ENV.idempotencyTable,
          ENV.queueUrl,
          ENV.limitsConfig,
          ENV.messagesConfig,
        ],
        getMessage: [ENV.rateLimitsTable, ENV.messagesTable, ENV.limitsConfig, ENV.messagesConfig],
        fallback: [ENV.rateLimitsTable, ENV.limitsConfig, ENV.messagesConfig],
        // The webhooks' table and delivery queue: the worker tells outcomes to webhooks (Webhooks.connectWorker).
        worker: [
          ENV.messagesTable,
          ENV.messagesConfig,
          ENV.rateLimitsTable,
          ENV.queueUrl,
          WEBHOOK_ENV.webhooksTable,
          WEBHOOK_ENV.deliveryQueueUrl,
        ],
      };
      for (const [name, keys] of Object.entries(expected)) {
        const vars = fnProps(name as keyof MessagesApi['functions']).Environment.Variables as Json;
        expect(Object.keys(vars).sort(), name).toEqual([...base, ...keys].sort());
        if (vars[ENV.limitsConfig]) {
          expect(JSON.parse(vars[ENV.limitsConfig]), name).toEqual({
            plans: config.plans,
            anonymous: config.anonymous,
          });
        }
        if (vars[ENV.messagesConfig]) expect(JSON.parse(vars[ENV.messagesConfig]), name).toEqual(config.messages);
      }
      expect(fnProps('authorizer').Environment.Variables[ENV.keyCacheSeconds]).toBe(
        String(config.auth.keyCacheSeconds),
      );
    });

    it('passes the authorizer the value of every pooled usage key as POOLED_USAGE_KEYS JSON, as literals (no reference to resolve)', () => {
      const value = fnProps('authorizer').Environment.Variables[ENV.pooledUsageKeys] as unknown;
      expect(typeof value).toBe('string');
      expect(JSON.parse(value as string)).toEqual(
        Object.fromEntries(USAGE_IDENTIFIERS.map((u) => [u, resources[idOf(api.usagePlans[u].key)]?.Properties.Value])),
      );
    });

    it('consumes the queue in batches of up to 100 with partial batch responses', () => {
      // The worker's, and the webhooks' delivery function on its own queue.
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: fnId('worker') },
        BatchSize: 100,
        MaximumBatchingWindowInSeconds: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });
  });

  describe('least privilege', () => {
    it('attaches no managed policy to any function role', () => {
      for (const name of ['authorizer', 'sendMessage', 'getMessage', 'fallback', 'worker'] as const) {
        expect(resources[idOf(api.functions[name].role)]?.Properties.ManagedPolicyArns, name).toBeUndefined();
      }
    });

    it('uses Resource "*" only for the X-Ray write actions', () => {
      for (const name of ['authorizer', 'sendMessage', 'getMessage', 'fallback', 'worker'] as const) {
        for (const s of statementsOf(name)) {
          if (s.Resource === '*' || (Array.isArray(s.Resource) && s.Resource.includes('*'))) {
            expect(actionsOf(s).sort(), name).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
          }
          for (const a of actionsOf(s)) expect(a, name).not.toContain('*');
        }
      }
    });

    it('grants each function exactly its actions', () => {
      const logsXray = [
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ];
      const expected: Record<keyof MessagesApi['functions'], string[]> = {
        authorizer: ['dynamodb:GetItem'],
        sendMessage: [
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
          'sqs:SendMessage',
        ],
        getMessage: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
        fallback: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        worker: [
          'dynamodb:GetItem',
          'dynamodb:UpdateItem',
          'sqs:ChangeMessageVisibility',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'sqs:GetQueueUrl',
          'sqs:ReceiveMessage',
          // Webhooks.connectWorker: the account's endpoints (Query), one delivery job per endpoint.
          'dynamodb:Query',
          'sqs:SendMessage',
        ],
      };
      for (const [name, actions] of Object.entries(expected)) {
        expect([...allowedActions(name as keyof MessagesApi['functions'])].sort(), name).toEqual(
          [...new Set([...logsXray, ...actions])].sort(),
        );
      }
    });

    it('lets the authorizer read the apiKeys table only, and write nothing', () => {
      const actions = allowedActions('authorizer');
      for (const a of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query']) {
        expect(actions.has(a), a).toBe(false);
      }
      const dynamo = statementsOf('authorizer').filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
      expect(dynamo).toHaveLength(1);
      expect(stack.resolve(dynamo[0]?.Resource)).toEqual(
        stack.resolve(platform.dataStack.messages.tables.apiKeys.tableArn),
      );
    });

    it('gives the authorizer no API Gateway action at all: no management-plane call on the request path', () => {
      const apigateway = [...allowedActions('authorizer')].filter((a) => a.startsWith('apigateway:'));
      expect(apigateway).toEqual([]);
      const anyApiGatewayResource = statementsOf('authorizer').filter((st) =>
        JSON.stringify(st.Resource).includes(':apigateway:'),
      );
      expect(anyApiGatewayResource).toEqual([]);
    });

    it('scopes table grants to the tables each function needs (never index ARNs)', () => {
      const tables = platform.dataStack.messages.tables;
      const resourcesFor = (name: keyof MessagesApi['functions'], action: string) =>
        statementsOf(name)
          .filter((s) => actionsOf(s).includes(action))
          .flatMap((s) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]));
      const arn = (t: keyof typeof tables) => stack.resolve(tables[t].tableArn);
      expect(resourcesFor('sendMessage', 'dynamodb:UpdateItem')).toEqual([arn('rateLimits')]);
      expect(resourcesFor('sendMessage', 'dynamodb:DeleteItem')).toEqual(
        expect.arrayContaining([arn('messages'), arn('idempotency')]),
      );
      expect(resourcesFor('sendMessage', 'dynamodb:DeleteItem')).toHaveLength(2);
      expect(resourcesFor('sendMessage', 'dynamodb:BatchWriteItem')).toEqual([arn('messages')]);
      expect(resourcesFor('getMessage', 'dynamodb:GetItem')).toEqual(
        expect.arrayContaining([arn('rateLimits'), arn('messages')]),
      );
      expect(resourcesFor('getMessage', 'dynamodb:PutItem')).toEqual([arn('rateLimits')]);
      // The message log: Query on the account index only, never on the table itself.
      const queried = resourcesFor('getMessage', 'dynamodb:Query');
      expect(queried).toHaveLength(1);
      expect(JSON.stringify(queried[0])).toContain('/index/byAccount');
      expect(JSON.stringify(queried[0])).toContain(JSON.stringify(arn('messages')).slice(1, -1));
      expect(resourcesFor('fallback', 'dynamodb:GetItem')).toEqual([arn('rateLimits')]);
      // The worker's usage history: UpdateItem on the limiter's table, nothing else there.
      expect(resourcesFor('worker', 'dynamodb:UpdateItem')).toEqual(expect.arrayContaining([arn('messages'), arn('rateLimits')]));
      expect(resourcesFor('worker', 'dynamodb:UpdateItem')).toHaveLength(2);
      expect(resourcesFor('worker', 'dynamodb:GetItem')).toEqual([arn('messages')]);
      expect(resourcesFor('sendMessage', 'sqs:SendMessage')).toEqual([
        stack.resolve(platform.dataStack.messages.queue.queueArn),
      ]);
    });

    it('does not let the worker (or anything but sendMessage) send to the queue', () => {
      for (const name of ['authorizer', 'getMessage', 'fallback'] as const) {
        expect(allowedActions(name).has('sqs:SendMessage'), name).toBe(false);
      }
      // The worker sends only to the webhooks' delivery queue, never to the messages queue.
      const workerSends = statementsOf('worker').filter((s) => s.Effect === 'Allow' && actionsOf(s).includes('sqs:SendMessage'));
      expect(workerSends).toHaveLength(1);
      expect(JSON.stringify(workerSends[0]?.Resource)).toMatch(/Delivery/);
      expect(JSON.stringify(workerSends[0]?.Resource)).not.toMatch(/MessagesQueue|MessageQueue/);
    });
  });
});
