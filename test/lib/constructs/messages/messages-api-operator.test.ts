import type { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlatformApp } from '../../../../lib/app.js';
import type { MessagesApi } from '../../../../lib/constructs/messages/messages-api.js';
import { OPERATOR_OUTPUTS } from '../../../../lib/stacks/api-stack-outputs.js';
import { actionsOf, apiStackOfTheApp, type ApiStackOfTheApp, type Json, type Statement } from './messages-api.fixture.js';

// MessagesApi in the app: what the operator CLI's account service reads and may do.

describe('MessagesApi (in the ApiStack of the app)', () => {
  let platform: PlatformApp;
  let stack: Stack;
  let api: MessagesApi;
  let template: Template;
  let idOf: ApiStackOfTheApp['idOf'];

  beforeAll(() => {
    ({ platform, stack, api, template, idOf } = apiStackOfTheApp());
  });

  describe('account service (operator)', () => {
    const outputs = () => template.toJSON().Outputs as Json;
    const operatorPolicy = () => {
      const policies = template.findResources('AWS::IAM::ManagedPolicy');
      expect(Object.keys(policies)).toEqual([idOf(api.usagePlanTargets.operatorPolicy)]);
      return Object.values(policies)[0]?.Properties as Json;
    };
    const operatorStatements = () => operatorPolicy().PolicyDocument.Statement as (Statement & { Sid: string })[];

    it('outputs the REST API id, stage and standard usage plan ids under fixed names, as the construct exposes them', () => {
      expect(OPERATOR_OUTPUTS).toEqual({
        restApiId: 'RestApiId',
        stageName: 'StageName',
        freeUsagePlanId: 'FreeUsagePlanId',
        proUsagePlanId: 'ProUsagePlanId',
        businessUsagePlanId: 'BusinessUsagePlanId',
        operatorPolicyArn: 'OperatorPolicyArn',
      });
      const o = outputs();
      expect(o.RestApiId.Value).toEqual({ Ref: idOf(api.api) });
      expect(o.StageName.Value).toEqual({ Ref: idOf(api.stage) });
      expect(o.FreeUsagePlanId.Value).toEqual({ Ref: idOf(api.usagePlans.free.plan) });
      expect(o.ProUsagePlanId.Value).toEqual({ Ref: idOf(api.usagePlans.pro.plan) });
      expect(o.BusinessUsagePlanId.Value).toEqual({ Ref: idOf(api.usagePlans.business.plan) });
      expect(o.OperatorPolicyArn.Value).toEqual({ Ref: idOf(api.usagePlanTargets.operatorPolicy) });
      for (const name of Object.values(OPERATOR_OUTPUTS)) {
        expect(o[name].Description, name).toEqual(expect.any(String));
      }
      // The construct exposes the same values and outputs.
      expect(stack.resolve(api.usagePlanTargets.restApiId)).toEqual(o.RestApiId.Value);
      expect(stack.resolve(api.usagePlanTargets.stageName)).toEqual(o.StageName.Value);
      expect(stack.resolve(api.usagePlanTargets.standardPlanIds)).toEqual({
        free: o.FreeUsagePlanId.Value,
        pro: o.ProUsagePlanId.Value,
        business: o.BusinessUsagePlanId.Value,
      });
      for (const [key, name] of Object.entries(OPERATOR_OUTPUTS)) {
        expect(api.operatorOutputs[key as keyof typeof OPERATOR_OUTPUTS].node.id, key).toBe(name);
      }
    });

    it('has an operator managed policy with a description, attached to nobody by the stack', () => {
      const policy = operatorPolicy();
      expect(policy.Description).toMatch(/control plane.*operator CLI/);
      expect(policy.Roles ?? policy.Users ?? policy.Groups).toBeUndefined();
    });

    it('gives the operator exactly the account service\'s actions, on named resources, never a "*" action', () => {
      const tables = platform.dataStack.messages.tables;
      const arn = (t: keyof typeof tables) => stack.resolve(tables[t].tableArn);
      const apigw = (path: string) => `arn:aws:apigateway:${stack.region}::${path}`;
      const bySid = Object.fromEntries(
        operatorStatements().map((s) => [
          s.Sid,
          { effect: s.Effect, actions: actionsOf(s).sort(), resource: s.Resource },
        ]),
      );
      expect(bySid).toEqual({
        // Scan: keys backfill-usage-keys without --account reads every key record.
        ApiKeyRecords: {
          effect: 'Allow',
          actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          resource: arn('apiKeys'),
        },
        ApiKeysOfAnAccount: {
          effect: 'Allow',
          actions: ['dynamodb:Query'],
          resource: { 'Fn::Join': ['', [arn('apiKeys'), '/index/byAccount']] },
        },
        Accounts: { effect: 'Allow', actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Scan'], resource: arn('accounts') },
        LimiterItems: { effect: 'Allow', actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], resource: arn('rateLimits') },
        ApiKeysAndUsagePlans: {
          effect: 'Allow',
          actions: ['apigateway:DELETE', 'apigateway:GET', 'apigateway:PATCH', 'apigateway:POST'],
          resource: [apigw('/apikeys'), apigw('/apikeys/*'), apigw('/usageplans'), apigw('/usageplans/*')],
        },
        TagOnCreate: { effect: 'Allow', actions: ['apigateway:PUT'], resource: apigw('/tags/*') },
        StackOutputs: { effect: 'Allow', actions: ['cloudformation:DescribeStacks'], resource: { Ref: 'AWS::StackId' } },
        RedriveFromDeadLetterQueue: {
          effect: 'Allow',
          actions: ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage', 'sqs:StartMessageMoveTask'],
          resource: stack.resolve(platform.dataStack.messages.deadLetterQueue.queueArn),
        },
        RedriveToQueue: {
          effect: 'Allow',
          actions: ['sqs:GetQueueAttributes', 'sqs:SendMessage'],
          resource: stack.resolve(platform.dataStack.messages.queue.queueArn),
        },
        // `domains check-drift|show|verify|release --stack`: the flow, the two tables' items, the stacks' outputs (lib/app.ts).
        StartDomainFlow: {
          effect: 'Allow',
          actions: ['states:StartExecution'],
          resource: stack.resolve(platform.domainsStack.flow.stateMachine.stateMachineArn),
        },
        DomainFlowHistory: {
          effect: 'Allow',
          actions: ['states:ListExecutions'],
          resource: stack.resolve(platform.domainsStack.flow.stateMachine.stateMachineArn),
        },
        DomainRecords: {
          effect: 'Allow',
          actions: ['dynamodb:GetItem'],
          resource: [
            stack.resolve(platform.domainsDataStack.projects.tables.projects.tableArn),
            stack.resolve(platform.domainsDataStack.projects.tables.domains.tableArn),
          ],
        },
        DomainReverify: {
          effect: 'Allow',
          actions: ['dynamodb:UpdateItem'],
          resource: stack.resolve(platform.domainsDataStack.projects.tables.domains.tableArn),
        },
        DomainsStackOutputs: {
          effect: 'Allow',
          actions: ['cloudformation:DescribeStacks'],
          resource: [stack.resolve(platform.domainsStack.stackId), stack.resolve(platform.domainsDataStack.stackId)],
        },
      });
      for (const s of operatorStatements()) {
        for (const a of actionsOf(s)) expect(a, s.Sid).not.toContain('*');
        expect(s.Resource, s.Sid).not.toBe('*');
        expect(s).not.toHaveProperty('NotAction');
        expect(s).not.toHaveProperty('NotResource');
      }
    });
  });
});
