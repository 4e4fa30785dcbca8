import { App, type AppProps } from 'aws-cdk-lib';
import { loadConfig, type PlatformConfig } from './config/index.js';
import { applyNag } from './nag.js';
import { applyControlTower } from './policy-validation.js';
import { ApiStack } from './stacks/api-stack.js';
import { DashboardDataStack, DashboardStack } from './stacks/dashboard-stack.js';
import { DataStack } from './stacks/data-stack.js';
import { DomainsDataStack, DomainsStack, EdgeCertificateStack } from './stacks/domains-stack.js';

export const DEFAULT_STACK_PREFIX = 'MessagesPlatform';

export interface PlatformApp {
  readonly app: App;
  readonly config: PlatformConfig;
  readonly stackPrefix: string;
  readonly dataStack: DataStack;
  readonly apiStack: ApiStack;
  readonly edgeCertificateStack: EdgeCertificateStack;
  readonly domainsDataStack: DomainsDataStack;
  readonly domainsStack: DomainsStack;
  readonly dashboardDataStack: DashboardDataStack;
  readonly dashboardStack: DashboardStack;
}

export interface BuildAppOptions {
  /** Context values, as `-c key=value` would give them (e.g. `platform`, `stackPrefix`). */
  readonly context?: Record<string, unknown>;
  /** Cloud assembly directory. @default - the CLI's, or a temporary directory */
  readonly outdir?: string;
  /** Run cdk-nag. @default true */
  readonly nag?: boolean;
  /**
   * Run the AWS Control Tower proactive controls (cfn-guard, lib/policy-validation.ts).
   * @default - as `nag`: tests that skip cdk-nag look at resources, not at compliance
   */
  readonly controlTower?: boolean;
}

/** Context from `-c platform='{"plans":...}'` arrives as a JSON string; from cdk.json or tests, as an object. */
function contextObject(app: App, key: string): unknown {
  const raw: unknown = app.node.tryGetContext(key);
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new Error(`context "${key}" is not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * The CDK app: config from context (validated: a bad value fails synth), the stacks, cdk-nag.
 *
 * Stacks: `<stackPrefix>-Data` (stateful) and `<stackPrefix>-Api` (stateless, references the data
 * stack); for projects and custom domains `<stackPrefix>-EdgeCertificate` (us-east-1: platform
 * zone and wildcard certificate), `<stackPrefix>-DomainsData` (stateful: tables, site bucket,
 * KeyValueStore, multi-tenant distribution) and `<stackPrefix>-Domains` (stateless: the domain
 * flow); see lib/stacks/domains-stack.ts; for the owners' dashboard `<stackPrefix>-DashboardData`
 * (stateful: user pool, managed-login domain, Owners table) and `<stackPrefix>-Dashboard`
 * (stateless: control-plane API behind Cognito, app client, CloudFront hosting); see
 * lib/stacks/dashboard-stack.ts. Deployer overrides go in the `platform` context and are
 * merged over the defaults (lib/config/defaults.ts), e.g. in cdk.json or on the command line:
 *
 *   npx cdk synth -c stackPrefix=Staging \
 *     -c 'platform={"platform":{"region":"eu-central-1"},"plans":{"free":{"limits":{"perMinute":30,"perDay":500}}}}'
 */
export function buildApp(options: BuildAppOptions = {}): PlatformApp {
  const appProps: AppProps = { context: options.context, outdir: options.outdir };
  const app = new App(appProps);
  const config = loadConfig(contextObject(app, 'platform'));
  const stackPrefix = String(app.node.tryGetContext('stackPrefix') ?? DEFAULT_STACK_PREFIX);
  if (!/^[A-Za-z][A-Za-z0-9-]{0,80}$/.test(stackPrefix)) {
    throw new Error(`context "stackPrefix" must start with a letter and use letters, digits and "-": ${stackPrefix}`);
  }
  // Account left unresolved (environment-agnostic account), region from the config.
  const env = { region: config.platform.region };

  const dataStack = new DataStack(app, `${stackPrefix}-Data`, {
    env,
    config,
    description: 'Messages platform: stateful resources (tables, queues)',
  });
  const apiStack = new ApiStack(app, `${stackPrefix}-Api`, {
    env,
    config,
    messagesData: dataStack.messages,
    description: 'Messages platform: Messages API, authorizer, worker, usage plans, alarms',
  });

  const edgeCertificateStack = new EdgeCertificateStack(app, `${stackPrefix}-EdgeCertificate`, {
    config,
    description: 'Projects platform: the platform hosted zone and the wildcard certificate for CloudFront (us-east-1)',
  });
  const domainsDataStack = new DomainsDataStack(app, `${stackPrefix}-DomainsData`, {
    env,
    config,
    edgeZone: edgeCertificateStack.edgeZone,
    description: 'Projects platform: stateful resources (tables, site bucket, KeyValueStore) and the multi-tenant edge',
  });
  const domainsStack = new DomainsStack(app, `${stackPrefix}-Domains`, {
    env,
    config,
    data: domainsDataStack,
    description: 'Projects platform: the custom-domain flow (Step Functions, task functions, alarms)',
  });

  // The Cognito domain prefix of managed login: `-c dashboardDomainPrefix=<prefix>` when the default
  // (stack name and account id) is not wanted.
  const dashboardDomainPrefix: unknown = app.node.tryGetContext('dashboardDomainPrefix');
  const dashboardDataStack = new DashboardDataStack(app, `${stackPrefix}-DashboardData`, {
    env,
    domainPrefix: dashboardDomainPrefix === undefined ? undefined : String(dashboardDomainPrefix),
    description: 'Owners\' dashboard: stateful resources (Cognito user pool with managed login, Owners table)',
  });
  const dashboardStack = new DashboardStack(app, `${stackPrefix}-Dashboard`, {
    env,
    config,
    data: dashboardDataStack,
    messagesData: dataStack.messages,
    messagesApi: apiStack.messages,
    domainsData: domainsDataStack,
    domains: domainsStack,
    description: 'Owners\' dashboard: control-plane API behind Cognito, app client, CloudFront hosting of the app',
  });

  if (options.nag ?? true) applyNag(app);
  if (options.controlTower ?? options.nag ?? true) applyControlTower(app, stackPrefix);
  return {
    app,
    config,
    stackPrefix,
    dataStack,
    apiStack,
    edgeCertificateStack,
    domainsDataStack,
    domainsStack,
    dashboardDataStack,
    dashboardStack,
  };
}
