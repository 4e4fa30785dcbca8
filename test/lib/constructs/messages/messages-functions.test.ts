import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ENV, HANDLER_ENTRIES } from '../../../../contracts/messages.js';
import { createMessagesFunctions } from '../../../../lib/constructs/messages/messages-functions.js';
import { bareMessagesStack, logicalIdOf } from '../../support/bare-stack.js';

describe('createMessagesFunctions (in a bare stack)', () => {
  const { stack, config, data } = bareMessagesStack();
  const functions = createMessagesFunctions(stack, { config, data });
  const template = Template.fromStack(stack);
  type FunctionResource = { Properties: { Environment: { Variables: Record<string, unknown> } } };
  const resources = template.toJSON().Resources as Record<string, FunctionResource>;
  const environmentOf = (fn: keyof typeof functions) =>
    resources[logicalIdOf(stack, functions[fn].function)]?.Properties.Environment.Variables ?? {};

  it('creates one function per handler entry, with the ids Authorizer, SendMessage, GetMessage, Fallback and Worker in the given scope', () => {
    expect(Object.keys(functions)).toEqual(Object.keys(HANDLER_ENTRIES));
    expect(Object.values(functions).map((fn) => fn.node.id)).toEqual(['Authorizer', 'SendMessage', 'GetMessage', 'Fallback', 'Worker']);
    for (const fn of Object.values(functions)) expect(fn.node.scope).toBe(stack);
    template.resourceCountIs('AWS::Lambda::Function', 5);
  });

  it('gives each function exactly the contract variables (ENV) its handler reads', () => {
    const contractNames: readonly string[] = Object.values(ENV);
    const own = (fn: keyof typeof functions) =>
      Object.keys(environmentOf(fn)).filter((name) => contractNames.includes(name)).sort();
    expect(own('authorizer')).toEqual([ENV.apiKeysTable, ENV.keyCacheSeconds, ENV.limitsConfig].sort());
    expect(own('sendMessage')).toEqual([
      ENV.rateLimitsTable,
      ENV.messagesTable,
      ENV.idempotencyTable,
      ENV.queueUrl,
      ENV.limitsConfig,
      ENV.messagesConfig,
    ].sort());
    expect(own('getMessage')).toEqual([ENV.rateLimitsTable, ENV.messagesTable, ENV.limitsConfig, ENV.messagesConfig].sort());
    expect(own('fallback')).toEqual([ENV.rateLimitsTable, ENV.limitsConfig, ENV.messagesConfig].sort());
    expect(own('worker')).toEqual([ENV.messagesTable, ENV.messagesConfig, ENV.rateLimitsTable].sort());
  });

  it('passes the plans and anonymous limits as LIMITS_CONFIG', () => {
    expect(JSON.parse(environmentOf('sendMessage')[ENV.limitsConfig] as string)).toEqual({
      plans: config.plans,
      anonymous: config.anonymous,
    });
  });

  it('feeds the worker from the queue in batches of up to 100, gathered for 1 s, with partial batch responses', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    const mapping = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'))[0];
    expect(mapping?.Properties.BatchSize).toBe(100);
    expect(mapping?.Properties.MaximumBatchingWindowInSeconds).toBe(1);
    expect(mapping?.Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    expect(mapping?.Properties.FunctionName).toEqual({ Ref: logicalIdOf(stack, functions.worker.function) });
  });
});
