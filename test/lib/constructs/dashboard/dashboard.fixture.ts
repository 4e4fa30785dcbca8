import type { CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { buildApp, type PlatformApp } from '../../../../lib/app.js';
import type { Dashboard } from '../../../../lib/constructs/dashboard/dashboard.js';
import { cdkJsonContext, SKIP_BUNDLING } from '../../support/cdk-app.js';

// Shared by dashboard.test.ts, dashboard-data.test.ts and control-function.test.ts: the dashboard
// stacks (DashboardData, Dashboard) as the app builds them.

/** CloudFormation JSON as the assertions library types it. */
export type Json = ReturnType<Template['toJSON']>;

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

export const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The one element of a list (fails the test otherwise). */
export function only<T>(items: readonly T[]): T {
  expect(items).toHaveLength(1);
  return items[0] as T;
}

export interface DashboardStacksOfTheApp {
  platform: PlatformApp;
  stack: Stack;
  dataStack: Stack;
  dashboard: Dashboard;
  template: Template;
  dataTemplate: Template;
  resources: Record<string, Json>;
  assemblyDir: string;
  /** A token as CloudFormation sees it in the Dashboard stack (cross-stack references resolved). */
  inStack: (token: string) => unknown;
  idOf: (construct: { node: { defaultChild?: unknown } }) => string;
  distributionDomain: () => Json;
  dashboardOrigin: () => Json;
  gatewayResponse: (type: string) => Json;
}

function synthesize(): DashboardStacksOfTheApp {
  // Real handler entry, no bundling (esbuild, Vite): these tests read templates, not code.
  const platform = buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING }, nag: false });
  const stack = platform.dashboardStack;
  const dataStack = platform.dashboardDataStack;
  const dashboard = platform.dashboardStack.dashboard;
  const assemblyDir = platform.app.synth().directory;
  const template = Template.fromStack(stack);
  const dataTemplate = Template.fromStack(dataStack);
  const resources: Record<string, Json> = template.toJSON().Resources;

  const inStack = (token: string): unknown => stack.resolve(token);
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnResource);
  const distributionDomain = () => ({ 'Fn::GetAtt': [idOf(dashboard.distribution), 'DomainName'] });
  const dashboardOrigin = () => ({ 'Fn::Join': ['', ['https://', distributionDomain()]] });
  const gatewayResponse = (type: string) =>
    only(Object.values(template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: type } })) as Json[]);

  return {
    platform,
    stack,
    dataStack,
    dashboard,
    template,
    dataTemplate,
    resources,
    assemblyDir,
    inStack,
    idOf,
    distributionDomain,
    dashboardOrigin,
    gatewayResponse,
  };
}

let synthesized: DashboardStacksOfTheApp | undefined;

/**
 * The app, synthesized on the first call (in a test file's beforeAll) and kept for the next ones:
 * infra files run with `isolate: false`, so the files a worker runs share this module and one synth
 * of the app. Tests only read it.
 */
export function dashboardStacksOfTheApp(): DashboardStacksOfTheApp {
  synthesized ??= synthesize();
  return synthesized;
}
