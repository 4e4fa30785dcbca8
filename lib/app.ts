import { App, type AppProps } from 'aws-cdk-lib';
import { ConfigError, loadConfig, type PlatformConfig } from './config/index.js';
import { reservedDomainReason } from './config/reserved-domains.js';
import { applyNag } from './nag.js';
import { applyControlTower } from './policy-validation.js';
import { ApiStack } from './stacks/api-stack.js';
import { DashboardDataStack, DashboardStack } from './stacks/dashboard-stack.js';
import { DataStack } from './stacks/data-stack.js';
import { DomainsDataStack, DomainsStack, EdgeCertificateStack, EdgeZoneStack } from './stacks/domains-stack.js';
import { OperationsStack } from './stacks/operations-stack.js';

export const DEFAULT_STACK_PREFIX = 'MessagesPlatform';

export interface PlatformApp {
  readonly app: App;
  readonly config: PlatformConfig;
  readonly stackPrefix: string;
  readonly operationsStack: OperationsStack;
  readonly dataStack: DataStack;
  readonly apiStack: ApiStack;
  /** Absent when `platform.hostedZone` names an existing zone. */
  readonly edgeZoneStack?: EdgeZoneStack;
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
   * Whether this synth may be deployed: then a placeholder or reserved `platform.domain` is
   * refused, since its certificate could never validate. bin/app.ts sets it when the CDK CLI
   * resolved an AWS account (as `cdk deploy` must), unless `-c synthOnly=true`.
   * @default false
   */
  readonly deployable?: boolean;
  /**
   * Run the AWS Control Tower proactive controls (cfn-guard, lib/policy-validation.ts).
   * @default - as `nag`: tests that skip cdk-nag look at resources, not at compliance
   */
  readonly controlTower?: boolean;
}

/** Refuses, for a deploy, a platform domain nobody can delegate (lib/config/reserved-domains.ts). */
function assertDeployableDomain(config: PlatformConfig): void {
  const reason = reservedDomainReason(config.platform.domain);
  if (!reason) return;
  throw new ConfigError([
    `platform.domain "${config.platform.domain}" cannot be deployed: ${reason}. Set platform.domain to a domain you control, ` +
    'e.g. -c \'platform={"platform":{"domain":"apps.example-company.net"}}\' (docs/operators/deploy.md, "First deploy"). ' +
    'To synthesize without deploying, add -c synthOnly=true.',
  ]);
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
 * Stacks: `<stackPrefix>-Operations` (the alarm topic every alarm notifies), `<stackPrefix>-Data`
 * (stateful) and `<stackPrefix>-Api` (stateless, references the data stack); for projects and
 * custom domains `<stackPrefix>-EdgeZone` (us-east-1: the platform zone, unless
 * `platform.hostedZone` names one), `<stackPrefix>-EdgeCertificate` (us-east-1: the wildcard
 * certificate), `<stackPrefix>-DomainsData` (stateful: tables, site bucket, KeyValueStore,
 * multi-tenant distribution) and `<stackPrefix>-Domains` (stateless: the domain flow); see
 * lib/stacks/domains-stack.ts; for the owners' dashboard `<stackPrefix>-DashboardData`
 * (stateful: user pool, managed-login domain, Owners table) and `<stackPrefix>-Dashboard`
 * (stateless: control API behind Cognito, app client, CloudFront hosting); see
 * lib/stacks/dashboard-stack.ts. Deployer overrides go in the `platform` context and are
 * merged over the defaults (lib/config/defaults.ts), e.g. in cdk.json or on the command line:
 *
 *   npx cdk deploy --all -c stackPrefix=Staging \
 *     -c 'platform={"platform":{"domain":"staging.apps.example-company.net","region":"eu-central-1"}}'
 */
export function buildApp(options: BuildAppOptions = {}): PlatformApp {
  const appProps: AppProps = { context: options.context, outdir: options.outdir };
  const app = new App(appProps);
  const config = loadConfig(contextObject(app, 'platform'));
  const stackPrefix = String(app.node.tryGetContext('stackPrefix') ?? DEFAULT_STACK_PREFIX);
  if (!/^[A-Za-z][A-Za-z0-9-]{0,80}$/.test(stackPrefix)) {
    throw new Error(`context "stackPrefix" must start with a letter and use letters, digits and "-": ${stackPrefix}`);
  }
  const synthOnly = String(app.node.tryGetContext('synthOnly') ?? 'false') === 'true';
  if (options.deployable && !synthOnly) assertDeployableDomain(config);
  // Account left unresolved (environment-agnostic account), region from the config.
  const env = { region: config.platform.region };

  // Every alarm of every regional stack notifies this one topic.
  const operationsStack = new OperationsStack(app, `${stackPrefix}-Operations`, {
    env,
    config,
    description: 'Messages platform: the alarm topic every alarm of this environment notifies',
  });
  const alarmTopic = operationsStack.alarms.topic;

  const dataStack = new DataStack(app, `${stackPrefix}-Data`, {
    env,
    config,
    description: 'Messages platform: stateful resources (tables, queues)',
  });
  const apiStack = new ApiStack(app, `${stackPrefix}-Api`, {
    env,
    config,
    messagesData: dataStack.messages,
    alarmTopic,
    description: 'Messages platform: Messages API, authorizer, worker, usage plans, alarms',
  });

  // The zone first, in a stack of its own, unless the deployer gave an existing one.
  const edgeZoneStack = config.platform.hostedZone
    ? undefined
    : new EdgeZoneStack(app, `${stackPrefix}-EdgeZone`, {
        config,
        description: 'Projects platform: the platform hosted zone (retained; delegate the domain to its name servers)',
      });
  const edgeCertificateStack = new EdgeCertificateStack(app, `${stackPrefix}-EdgeCertificate`, {
    config,
    zone: edgeZoneStack?.platformZone.zone,
    description: 'Projects platform: the wildcard certificate for CloudFront (us-east-1), validated in the platform zone',
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
    alarmTopic,
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
    alarmTopic,
    description: 'Owners\' dashboard: control API behind Cognito, app client, CloudFront hosting of the app',
  });

  if (options.nag ?? true) applyNag(app);
  if (options.controlTower ?? options.nag ?? true) applyControlTower(app, stackPrefix);
  return {
    app,
    config,
    stackPrefix,
    operationsStack,
    dataStack,
    apiStack,
    edgeZoneStack,
    edgeCertificateStack,
    domainsDataStack,
    domainsStack,
    dashboardDataStack,
    dashboardStack,
  };
}
