import { readFileSync } from 'node:fs';
import { App, type AppProps, Tags } from 'aws-cdk-lib';
import {
  ConfigError,
  contextJson,
  DEFAULT_STACK_PREFIX,
  environmentTags,
  loadConfig,
  type PlatformConfig,
  metricsNamespaceOf,
  validStackPrefix,
} from './config/index.js';
import { reservedDomainReason } from './config/reserved-domains.js';
import { applyNag } from './nag.js';
import { applyControlTower } from './policy-validation.js';
import { ApiStack } from './stacks/api-stack.js';
import { DashboardDataStack, DashboardStack } from './stacks/dashboard-stack.js';
import { DataStack } from './stacks/data-stack.js';
import { DomainsDataStack, DomainsStack, EdgeCertificateStack, EdgeZoneStack } from './stacks/domains-stack.js';
import { OperationsStack } from './stacks/operations-stack.js';
import { EdgeObservabilityStack } from './stacks/edge-observability-stack.js';
import { edgeDashboardWidgets } from './constructs/operations/edge-observability.js';
import { allowDomainOperations } from './constructs/messages/operator-policy.js';

export { DEFAULT_STACK_PREFIX } from './config/index.js';

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
  readonly edgeObservabilityStack: EdgeObservabilityStack;
  readonly dashboardDataStack: DashboardDataStack;
  readonly dashboardStack: DashboardStack;
}

export interface BuildAppOptions {
  /** Context values, as `-c key=value` would give them (e.g. `platform`, `stackPrefix`). */
  readonly context?: Record<string, unknown>;
  /**
   * The file whose `context.platform` object is the environment's config (cdk.json). The CDK CLI
   * REPLACES a context key given with `-c`, so without this a partial `-c platform=...` would drop
   * every setting of the file; with it, the command line is merged over the file, key by key.
   * @default - none: the `platform` context alone
   */
  readonly configFile?: string;
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

/** The `context.platform` object of a cdk.json-shaped file. */
function fileConfig(path: string | undefined): unknown {
  if (!path) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError([`cannot read ${path}: ${(e as Error).message}`]);
  }
  try {
    return (JSON.parse(text) as { context?: { platform?: unknown } }).context?.platform;
  } catch (e) {
    throw new ConfigError([`${path} is not valid JSON: ${(e as Error).message}`]);
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
  // Every value is validated here, before any construct reads it.
  const stackPrefix = validStackPrefix(app.node.tryGetContext('stackPrefix') ?? DEFAULT_STACK_PREFIX);
  const config = loadConfig(contextJson('platform', fileConfig(options.configFile)), contextJson('platform', app.node.tryGetContext('platform')));
  const synthOnly = String(app.node.tryGetContext('synthOnly') ?? 'false') === 'true';
  if (options.deployable && !synthOnly) assertDeployableDomain(config);
  // Account left unresolved (environment-agnostic account), region from the config.
  const env = { region: config.platform.region };
  // Every stack: protected against deletion (unless the config says otherwise) and tagged. The
  // tags go on the stacks (CloudFormation propagates them at deploy time) and, through Tags.of,
  // into the templates on every resource that takes tags (@aws-cdk/core:explicitStackTags keeps
  // the two apart).
  const tags = environmentTags(config, stackPrefix);
  const protectedAndTagged = { terminationProtection: config.environment.terminationProtection, tags };
  for (const [key, value] of Object.entries(tags)) Tags.of(app).add(key, value);

  // Every alarm of every regional stack notifies this one topic.
  const operationsStack = new OperationsStack(app, `${stackPrefix}-Operations`, {
    env,
    ...protectedAndTagged,
    config,
    description: 'Messages platform: the alarm topic every alarm of this environment notifies',
  });
  const alarmTopic = operationsStack.alarms.topic;

  const dataStack = new DataStack(app, `${stackPrefix}-Data`, {
    env,
    ...protectedAndTagged,
    config,
    description: 'Messages platform: stateful resources (tables, queues)',
  });
  const apiStack = new ApiStack(app, `${stackPrefix}-Api`, {
    env,
    ...protectedAndTagged,
    config,
    messagesData: dataStack.messages,
    webhooksData: dataStack.webhooks,
    alarmTopic,
    description: 'Messages platform: Messages API, authorizer, worker, usage plans, alarms',
  });

  // The zone first, in a stack of its own, unless the deployer gave an existing one.
  const edgeZoneStack = config.platform.hostedZone
    ? undefined
    : new EdgeZoneStack(app, `${stackPrefix}-EdgeZone`, {
        config,
        ...protectedAndTagged,
        description: 'Projects platform: the platform hosted zone (retained; delegate the domain to its name servers)',
      });
  const edgeCertificateStack = new EdgeCertificateStack(app, `${stackPrefix}-EdgeCertificate`, {
    config,
    ...protectedAndTagged,
    zone: edgeZoneStack?.platformZone.zone,
    description: 'Projects platform: the wildcard certificate for CloudFront (us-east-1), validated in the platform zone',
  });
  const domainsDataStack = new DomainsDataStack(app, `${stackPrefix}-DomainsData`, {
    env,
    ...protectedAndTagged,
    config,
    edgeZone: edgeCertificateStack.edgeZone,
    description: 'Projects platform: stateful resources (tables, site bucket, KeyValueStore) and the multi-tenant edge',
  });
  const domainsStack = new DomainsStack(app, `${stackPrefix}-Domains`, {
    env,
    ...protectedAndTagged,
    config,
    data: domainsDataStack,
    alarmTopic,
    description: 'Projects platform: the custom-domain flow (Step Functions, task functions, alarms)',
  });

  // The operator CLI's `domains check-drift|show|verify|release --stack` (docs/operators/cli.md).
  allowDomainOperations(apiStack.messages.usagePlanTargets.operatorPolicy, {
    stateMachineArn: domainsStack.flow.stateMachine.stateMachineArn,
    stackId: domainsStack.stackId,
    dataStackId: domainsDataStack.stackId,
    domainsTableArn: domainsDataStack.projects.tables.domains.tableArn,
    projectsTableArn: domainsDataStack.projects.tables.projects.tableArn,
  });

  // The customer sites' distribution observed where CloudFront publishes (us-east-1), and on the ops dashboard.
  const edgeObservabilityStack = new EdgeObservabilityStack(app, `${stackPrefix}-EdgeObservability`, {
    config,
    ...protectedAndTagged,
    distributionId: domainsDataStack.edge.distributionId,
    description: 'Projects platform: access logs, metrics and alarms of the customer sites\' distribution (us-east-1, where CloudFront publishes)',
  });
  const edgeWidgets = edgeDashboardWidgets(domainsDataStack.edge.distributionId, metricsNamespaceOf(app));
  apiStack.messages.opsDashboard.addWidgets(...edgeWidgets);

  // The Cognito domain prefix of managed login: `-c dashboardDomainPrefix=<prefix>` when the default
  // (stack name and account id) is not wanted.
  const dashboardDomainPrefix: unknown = app.node.tryGetContext('dashboardDomainPrefix');
  const dashboardDataStack = new DashboardDataStack(app, `${stackPrefix}-DashboardData`, {
    env,
    ...protectedAndTagged,
    domainPrefix: dashboardDomainPrefix === undefined ? undefined : String(dashboardDomainPrefix),
    description: 'Owners\' dashboard: stateful resources (Cognito user pool with managed login, Owners table)',
  });
  const dashboardStack = new DashboardStack(app, `${stackPrefix}-Dashboard`, {
    env,
    ...protectedAndTagged,
    config,
    data: dashboardDataStack,
    messagesData: dataStack.messages,
    messagesApi: apiStack.messages,
    domainsData: domainsDataStack,
    domains: domainsStack,
    alarmTopic,
    description: 'Owners\' dashboard: control API behind Cognito, app client, CloudFront hosting of the app',
  });
  apiStack.webhooks.connectControl(dashboardStack.dashboard.controlFunction, dataStack.messages.tables.messages);

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
    edgeObservabilityStack,
    dashboardDataStack,
    dashboardStack,
  };
}
