import { Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { TABLE_KEYS } from '../../../contracts/messages.js';
import { apigatewayArn } from '../shared/arns.js';
import type { MessagesDataResources } from './messages-data.js';

/** The API Gateway management-API paths the operator policy covers (IAM `*` also matches `/`). */
export const OPERATOR_APIGATEWAY_PATHS = ['/apikeys', '/apikeys/*', '/usageplans', '/usageplans/*'] as const;
/** The API Gateway verbs the operator policy allows on those paths. */
export const OPERATOR_APIGATEWAY_VERBS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;

/** What an operator role needs to run the account service and the DLQ redrive against this stack, and nothing more. */
export function createOperatorPolicy(scope: Construct, data: MessagesDataResources): iam.ManagedPolicy {
  const stack = Stack.of(scope);
  const { tables, queue, deadLetterQueue } = data;
  const apigatewayResources = OPERATOR_APIGATEWAY_PATHS.map((path) => apigatewayArn(stack, path));
  const tagsArn = apigatewayArn(stack, '/tags/*');
  const policy = new iam.ManagedPolicy(scope, 'OperatorPolicy', {
    // Worded before the account service had its name, and kept: a managed policy's description is
    // immutable, so CloudFormation would replace the policy and detach it from operator roles.
    description: `Run the keys and plans control plane (operator CLI) against ${stack.stackName}: API key records, accounts, limiter items, internal API Gateway keys and usage plans, stack outputs, and the DLQ redrive.`,
    statements: [
      new iam.PolicyStatement({
        sid: 'ApiKeyRecords',
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [tables.apiKeys.tableArn],
      }),
      new iam.PolicyStatement({
        sid: 'ApiKeysOfAnAccount',
        actions: ['dynamodb:Query'],
        resources: [`${tables.apiKeys.tableArn}/index/${TABLE_KEYS.apiKeys.accountIndex.name}`],
      }),
      new iam.PolicyStatement({
        sid: 'Accounts',
        // Scan: `plans requests` lists the accounts with a pending upgrade request.
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Scan'],
        resources: [tables.accounts.tableArn],
      }),
      new iam.PolicyStatement({
        sid: 'LimiterItems',
        actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        resources: [tables.rateLimits.tableArn],
      }),
      new iam.PolicyStatement({
        sid: 'ApiKeysAndUsagePlans',
        actions: OPERATOR_APIGATEWAY_VERBS.map((verb) => `apigateway:${verb}`),
        resources: apigatewayResources,
      }),
      // CreateApiKey and CreateUsagePlan with tags (tag on create) are also authorized as
      // apigateway:PUT on the tags resource (Service Authorization Reference: CreateApiKey →
      // apigateway:POST, apigateway:PUT).
      new iam.PolicyStatement({
        sid: 'TagOnCreate',
        actions: ['apigateway:PUT'],
        resources: [tagsArn],
      }),
      new iam.PolicyStatement({
        sid: 'StackOutputs',
        actions: ['cloudformation:DescribeStacks'],
        resources: [stack.stackId],
      }),
      // `dlq redrive`: an SQS message move task from the DLQ back to the queue (SQS-managed SSE,
      // so no KMS grant is needed).
      new iam.PolicyStatement({
        sid: 'RedriveFromDeadLetterQueue',
        actions: ['sqs:GetQueueAttributes', 'sqs:StartMessageMoveTask', 'sqs:ReceiveMessage', 'sqs:DeleteMessage'],
        resources: [deadLetterQueue.queueArn],
      }),
      new iam.PolicyStatement({
        sid: 'RedriveToQueue',
        actions: ['sqs:GetQueueAttributes', 'sqs:SendMessage'],
        resources: [queue.queueArn],
      }),
    ],
  });
  const runTime = 'the control plane creates them at run time (one internal API key per customer key, one usage plan per Enterprise account), so their ids cannot be named in the template';
  const reasons: Record<string, string> = {
    '/apikeys/*': `Internal API Gateway keys: ${runTime}. API keys hold no customer secret; the grant is limited to the API keys path and the four verbs the control plane uses.`,
    '/usageplans/*': `Usage plans and their keys (/usageplans/{id}/keys/{keyId}): ${runTime}. The grant is limited to the usage plans path and the four verbs the control plane uses.`,
    '/tags/*': `Tag on create: CreateApiKey and CreateUsagePlan with tags are also authorized as apigateway:PUT on the tags resource of the new key or plan, whose id is only known at run time. Only PUT is granted on tags, nothing else.`,
  };
  for (const [path, reason] of Object.entries(reasons)) {
    Validations.of(policy).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${apigatewayNagArn(stack, path)}]`,
      reason,
    });
  }
  return policy;
}

/** `apigatewayArn(stack, path)` as cdk-nag writes it in a finding id, pseudo parameters as `<AWS::Name>`. */
function apigatewayNagArn(stack: Stack, path: string): string {
  const pseudo = (value: string, name: string) => (Token.isUnresolved(value) ? `<AWS::${name}>` : value);
  return `arn:${pseudo(stack.partition, 'Partition')}:apigateway:${pseudo(stack.region, 'Region')}::${path}`;
}

/**
 * The operator's part in custom domains (docs/operators/cli.md: `domains check-drift`, `show`,
 * `release`, `verify`): start and list the flow's executions, read domains and projects, write a
 * domain's new attempt, read the stacks' outputs. IAM cannot tell execution inputs apart; the flow
 * validates its input.
 */
export function allowDomainOperations(
  policy: iam.ManagedPolicy,
  domains: {
    readonly stateMachineArn: string;
    readonly stackId: string;
    readonly dataStackId: string;
    readonly domainsTableArn: string;
    readonly projectsTableArn: string;
  },
): void {
  policy.addStatements(
    new iam.PolicyStatement({
      sid: 'StartDomainFlow',
      actions: ['states:StartExecution'],
      resources: [domains.stateMachineArn],
    }),
    new iam.PolicyStatement({
      sid: 'DomainFlowHistory',
      actions: ['states:ListExecutions'],
      resources: [domains.stateMachineArn],
    }),
    new iam.PolicyStatement({
      sid: 'DomainRecords',
      actions: ['dynamodb:GetItem'],
      resources: [domains.domainsTableArn, domains.projectsTableArn],
    }),
    new iam.PolicyStatement({
      sid: 'DomainReverify',
      actions: ['dynamodb:UpdateItem'],
      resources: [domains.domainsTableArn],
    }),
    new iam.PolicyStatement({
      sid: 'DomainsStackOutputs',
      actions: ['cloudformation:DescribeStacks'],
      resources: [domains.stackId, domains.dataStackId],
    }),
  );
}
