import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  createOperatorPolicy,
  OPERATOR_APIGATEWAY_PATHS,
  OPERATOR_APIGATEWAY_VERBS,
} from '../../../../lib/constructs/messages/operator-policy.js';
import { bareMessagesStack } from '../../support/bare-stack.js';

interface Statement {
  Sid: string;
  Action: string | string[];
}

describe('createOperatorPolicy (in a bare stack)', () => {
  const { stack, data } = bareMessagesStack();
  const policy = createOperatorPolicy(stack, data);
  const template = Template.fromStack(stack);
  const statements = Object.values(template.findResources('AWS::IAM::ManagedPolicy'))[0]?.Properties.PolicyDocument.Statement as Statement[];
  const actionsOf = (sid: string) => {
    const action = statements.find((s) => s.Sid === sid)?.Action;
    return Array.isArray(action) ? action : [action];
  };

  it('is one managed policy with the id OperatorPolicy in the given scope', () => {
    template.resourceCountIs('AWS::IAM::ManagedPolicy', 1);
    expect(policy.node.id).toBe('OperatorPolicy');
    expect(policy.node.scope).toBe(stack);
  });

  it('grants exactly the statements the account service and the DLQ redrive need', () => {
    expect(statements.map((s) => s.Sid)).toEqual([
      'ApiKeyRecords',
      'ApiKeysOfAnAccount',
      'Accounts',
      'LimiterItems',
      'ApiKeysAndUsagePlans',
      'TagOnCreate',
      'StackOutputs',
      'RedriveFromDeadLetterQueue',
      'RedriveToQueue',
    ]);
    expect(actionsOf('ApiKeysAndUsagePlans').sort()).toEqual(OPERATOR_APIGATEWAY_VERBS.map((verb) => `apigateway:${verb}`).sort());
    expect(actionsOf('TagOnCreate')).toEqual(['apigateway:PUT']);
    // Scan: `plans requests` lists the accounts with a pending upgrade request.
    expect(actionsOf('Accounts')).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Scan']);
    expect(OPERATOR_APIGATEWAY_PATHS).toEqual(['/apikeys', '/apikeys/*', '/usageplans', '/usageplans/*']);
  });
});
