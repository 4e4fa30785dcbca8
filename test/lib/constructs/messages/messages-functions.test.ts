import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ENV, HANDLER_ENTRIES } from '../../../../contracts/messages.js';
import { createMessagesFunctions } from '../../../../lib/constructs/messages/messages-functions.js';
import { loadConfig } from '../../../../lib/config/index.js';
import { MessagesData } from '../../../../lib/constructs/messages/messages-data.js';
import { ECHO_MARKER } from '../../../support/processors/echo-processor.js';
import { bareMessagesStack, logicalIdOf } from '../../support/bare-stack.js';
import { cdkJsonContext } from '../../support/cdk-app.js';

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
    expect(own('worker')).toEqual([ENV.messagesTable, ENV.messagesConfig, ENV.rateLimitsTable, ENV.queueUrl].sort());
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

  it('refuses a processor that does not exist, naming it', () => {
    const bare = bareMessagesStack('NoProcessor');
    expect(() => createMessagesFunctions(bare.stack, { ...bare, processor: 'processors/nope.ts' })).toThrow(
      'the processor processors/nope.ts does not exist',
    );
  });

  it('passes the processor environment to the worker only', () => {
    const bare = bareMessagesStack('ProcessorEnv');
    const fns = createMessagesFunctions(bare.stack, { ...bare, processorEnvironment: { FORWARD_URL: 'https://example.com/in' } });
    const all = Template.fromStack(bare.stack).toJSON().Resources as Record<string, FunctionResource>;
    const env = (fn: keyof typeof fns) =>
      all[logicalIdOf(bare.stack, fns[fn].function)]?.Properties.Environment.Variables ?? {};
    expect(env('worker').FORWARD_URL).toBe('https://example.com/in');
    expect(env('sendMessage').FORWARD_URL).toBeUndefined();
  });
});

describe('the worker bundle takes in the configured processor (esbuild alias of PROCESSOR_IMPORT)', () => {
  it('bundles the named module, not the default one', () => {
    const config = loadConfig({ processor: 'test/support/processors/echo-processor.ts' });
    const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': ['Bundled'] } });
    const stack = new Stack(app, 'Bundled', { env: { account: '123456789012', region: config.platform.region } });
    const data = new MessagesData(stack, 'Data', { config });
    const functions = createMessagesFunctions(stack, { config, data });
    const assembly = app.synth();
    type CodeResource = { Properties: { Code: { S3Key: string } } };
    const resources = assembly.getStackByName('Bundled').template.Resources as Record<string, CodeResource>;
    // The function's code is the asset whose hash names its S3 key (`<hash>.zip` → `asset.<hash>`).
    const codeOf = (fn: keyof typeof functions) => {
      const key = resources[logicalIdOf(stack, functions[fn].function)]?.Properties.Code.S3Key ?? '';
      return readFileSync(join(assembly.directory, `asset.${key.replace(/\.zip$/, '')}`, 'index.mjs'), 'utf8');
    };
    expect(codeOf('worker')).toContain(ECHO_MARKER);
    // The read function has no processor in it.
    expect(codeOf('getMessage')).not.toContain(ECHO_MARKER);
  }, 120_000);
});
