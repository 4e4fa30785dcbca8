import { App, type CfnResource, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { loadConfig } from '../../../../lib/config/index.js';
import type { DomainFlow, FlowTask } from '../../../../lib/constructs/domains/domain-flow.js';
import { DomainsDataStack, DomainsStack } from '../../../../lib/stacks/domains-stack.js';
import { cdkJsonContext, edgeStacks, SKIP_BUNDLING } from '../../support/cdk-app.js';

// Shared by domain-flow.test.ts and flow-permissions.test.ts: DomainFlow in the Domains stack.

export type Json = ReturnType<Template['toJSON']>;

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Sid?: string;
}

/** Stand-in for lambda/domains/flow-handlers.ts: exports the five verification task handlers. */
export const FIXTURE = 'test/lib/fixtures/flow-handlers.fixture.ts';
export const config = loadConfig();
export const env = { region: config.platform.region };
export const list = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

type WithDefaultChild = { node: { defaultChild?: unknown } };

export interface DomainFlowInItsStack {
  dataStack: DomainsDataStack;
  stack: DomainsStack;
  flow: DomainFlow;
  template: Template;
  resources: Json;
  dataOutputs: Json;
  idIn: (s: Stack, construct: WithDefaultChild) => string;
  idOf: (construct: WithDefaultChild) => string;
  fnId: (task: FlowTask) => string;
  statementsOfRole: (roleId: string) => Statement[];
  statementsOf: (task: FlowTask) => Statement[];
  /** A resource as the DomainsData stack defines it: cross-stack references followed to their source. */
  source: (value: unknown) => unknown;
  arnOf: (construct: WithDefaultChild) => Json;
}

function synthesize(): DomainFlowInItsStack {
  const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
  const { certStack } = edgeStacks(app, 'Test', config);
  const dataStack = new DomainsDataStack(app, 'Test-DomainsData', { config, env, edgeZone: certStack.edgeZone });
  const stack = new DomainsStack(app, 'Test-Domains', { config, env, data: dataStack, flowTasksEntry: FIXTURE });
  const flow = stack.flow;
  app.synth();
  const template = Template.fromStack(stack);
  const resources: Json = template.toJSON().Resources;
  const dataOutputs: Json = Template.fromStack(dataStack).toJSON().Outputs;

  const idIn = (s: Stack, construct: WithDefaultChild) =>
    s.getLogicalId((construct.node.defaultChild ?? construct) as CfnResource);
  const idOf = (construct: WithDefaultChild) => idIn(stack, construct);
  const fnId = (task: FlowTask) => idOf(flow.functions[task].function);
  const statementsOfRole = (roleId: string): Statement[] =>
    Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
  const statementsOf = (task: FlowTask) => statementsOfRole(idOf(flow.functions[task].role));
  const source = (value: unknown): unknown => {
    const ref = (value as Json)?.['Fn::GetStackOutput'] as { StackName: string; OutputName: string } | undefined;
    if (!ref) return value;
    expect(ref.StackName).toBe(dataStack.stackName);
    return dataOutputs[ref.OutputName].Value;
  };
  const arnOf = (construct: WithDefaultChild) => ({ 'Fn::GetAtt': [idIn(dataStack, construct), 'Arn'] });

  return {
    dataStack,
    stack,
    flow,
    template,
    resources,
    dataOutputs,
    idIn,
    idOf,
    fnId,
    statementsOfRole,
    statementsOf,
    source,
    arnOf,
  };
}

let synthesized: DomainFlowInItsStack | undefined;

/**
 * The stacks, synthesized on the first call (in a test file's beforeAll) and kept for the next ones:
 * infra files run with `isolate: false`, so the files a worker runs share this module and one synth.
 * Tests only read it.
 */
export function domainFlowInItsStack(): DomainFlowInItsStack {
  synthesized ??= synthesize();
  return synthesized;
}
