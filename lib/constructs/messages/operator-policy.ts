import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { TABLE_KEYS } from '../../../contracts/messages.js';
import { apigatewayArn } from '../shared/arns.js';
import { nagArn } from '../dashboard/nag-arn.js';
import { acknowledgeNag } from '../shared/nag.js';
import type { MessagesData } from './messages-data.js';

/** The API Gateway management-API paths the operator policy covers (IAM `*` also matches `/`). */
export const OPERATOR_APIGATEWAY_PATHS = ['/apikeys', '/apikeys/*', '/usageplans', '/usageplans/*'] as const;
/** The API Gateway verbs the operator policy allows on those paths. */
export const OPERATOR_APIGATEWAY_VERBS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;

/** What an operator role needs to run the account service and the DLQ redrive against this stack, and nothing more. */
export function createOperatorPolicy(scope: Construct, data: MessagesData): iam.ManagedPolicy {
  const stack = Stack.of(scope);
  const { tables, queue, deadLetterQueue } = data;
  const apigateway = OPERATOR_APIGATEWAY_PATHS.map((path) => apigatewayArn(stack, path));
  const apiKeys = tables.apiKeys.tableArn;
  const tagsArn = apigatewayArn(stack, '/tags/*');
  const policy = new iam.ManagedPolicy(scope, 'OperatorPolicy', {
    // Worded before the account service had its name, and kept: a managed policy's description is
    // immutable, so CloudFormation would replace the policy and detach it from operator roles.
    description: `Run the keys and plans control plane (operator CLI) against ${stack.stackName}: API key records, accounts, limiter items, internal API Gateway keys and usage plans, stack outputs, and the DLQ redrive.`,
    statements: [
      statement('ApiKeyRecords', ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [apiKeys]),
      statement('ApiKeysOfAnAccount', ['dynamodb:Query'], [`${apiKeys}/index/${TABLE_KEYS.apiKeys.accountIndex.name}`]),
      // Scan: `plans requests` lists the accounts with a pending upgrade request.
      statement('Accounts', ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Scan'], [tables.accounts.tableArn]),
      statement('LimiterItems', ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [tables.rateLimits.tableArn]),
      statement('ApiKeysAndUsagePlans', OPERATOR_APIGATEWAY_VERBS.map((verb) => `apigateway:${verb}`), apigateway),
      // CreateApiKey and CreateUsagePlan with tags (tag on create) are also authorized as
      // apigateway:PUT on the tags resource (Service Authorization Reference: CreateApiKey →
      // apigateway:POST, apigateway:PUT).
      statement('TagOnCreate', ['apigateway:PUT'], [tagsArn]),
      statement('StackOutputs', ['cloudformation:DescribeStacks'], [stack.stackId]),
      // `dlq redrive`: an SQS message move task from the DLQ back to the queue (SQS-managed SSE,
      // so no KMS grant is needed).
      statement(
        'RedriveFromDeadLetterQueue',
        ['sqs:GetQueueAttributes', 'sqs:StartMessageMoveTask', 'sqs:ReceiveMessage', 'sqs:DeleteMessage'],
        [deadLetterQueue.queueArn],
      ),
      statement('RedriveToQueue', ['sqs:GetQueueAttributes', 'sqs:SendMessage'], [queue.queueArn]),
    ],
  });
  const runTime = 'the control plane creates them at run time (one internal API key per customer key, one usage plan per Enterprise account), so their ids cannot be named in the template';
  const reasons: Record<string, string> = {
    '/apikeys/*': `Internal API Gateway keys: ${runTime}. API keys hold no customer secret; the grant is limited to the API keys path and the four verbs the control plane uses.`,
    '/usageplans/*': `Usage plans and their keys (/usageplans/{id}/keys/{keyId}): ${runTime}. The grant is limited to the usage plans path and the four verbs the control plane uses.`,
    '/tags/*': `Tag on create: CreateApiKey and CreateUsagePlan with tags are also authorized as apigateway:PUT on the tags resource of the new key or plan, whose id is only known at run time. Only PUT is granted on tags, nothing else.`,
  };
  for (const [path, reason] of Object.entries(reasons)) {
    acknowledgeNag(policy, { [`IAM5[Resource::${nagArn(stack, apigatewayArn(stack, path))}]`]: reason });
  }
  return policy;
}

const statement = (sid: string, actions: string[], resources: string[]) =>
  new iam.PolicyStatement({ sid, actions, resources });

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
    statement('StartDomainFlow', ['states:StartExecution'], [domains.stateMachineArn]),
    statement('DomainFlowHistory', ['states:ListExecutions'], [domains.stateMachineArn]),
    statement('DomainRecords', ['dynamodb:GetItem'], [domains.domainsTableArn, domains.projectsTableArn]),
    statement('DomainReverify', ['dynamodb:UpdateItem'], [domains.domainsTableArn]),
    statement('DomainsStackOutputs', ['cloudformation:DescribeStacks'], [domains.stackId, domains.dataStackId]),
  );
}
