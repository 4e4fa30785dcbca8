import type { CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp, type PlatformApp } from '../../../../lib/app.js';
import type { PlatformConfig } from '../../../../lib/config/index.js';
import type { MessagesApi } from '../../../../lib/constructs/messages/messages-api.js';
import { cdkJsonContext } from '../../support/cdk-app.js';

// Shared by the messages-api*.test.ts files: MessagesApi as the app's ApiStack builds it.

/** CloudFormation JSON as the assertions library types it. */
export type Json = ReturnType<Template['toJSON']>;

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

export const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

type FunctionName = keyof MessagesApi['functions'];

export interface ApiStackOfTheApp {
  platform: PlatformApp;
  config: PlatformConfig;
  stack: Stack;
  api: MessagesApi;
  template: Template;
  resources: Record<string, Json>;
  idOf: (construct: { node: { defaultChild?: unknown } }) => string;
  fnId: (name: FunctionName) => string;
  fnProps: (name: FunctionName) => Json;
  statementsOf: (name: FunctionName) => Statement[];
  allowedActions: (name: FunctionName) => Set<string>;
}

function synthesize(): ApiStackOfTheApp {
  // The real app (with the real handler bundles), as `cdk synth` builds it; nag is tested in app.test.ts.
  const platform = buildApp({ context: cdkJsonContext(), nag: false });
  const stack = platform.apiStack;
  const api = platform.apiStack.messages;
  const template = Template.fromStack(stack);
  const resources: Record<string, Json> = template.toJSON().Resources;

  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnResource);
  const fnId = (name: FunctionName) => idOf(api.functions[name].function);
  const fnProps = (name: FunctionName) => resources[fnId(name)]?.Properties as Json;
  const statementsOf = (name: FunctionName): Statement[] => {
    const roleId = idOf(api.functions[name].role);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId),
    );
    return policies.flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
  };
  const allowedActions = (name: FunctionName) =>
    new Set(statementsOf(name).flatMap((s) => (s.Effect === 'Allow' ? actionsOf(s) : [])));

  const config = platform.config;
  return { platform, config, stack, api, template, resources, idOf, fnId, fnProps, statementsOf, allowedActions };
}

let synthesized: ApiStackOfTheApp | undefined;

/**
 * The app, synthesized on the first call (in a test file's beforeAll) and kept for the next ones:
 * infra files run with `isolate: false`, so the files a worker runs share this module and one synth
 * of the app (a synth with the real bundles takes most of a file's time). Tests only read it.
 */
export function apiStackOfTheApp(): ApiStackOfTheApp {
  synthesized ??= synthesize();
  return synthesized;
}
