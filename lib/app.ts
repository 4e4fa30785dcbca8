import { readFileSync } from 'node:fs';
import { App, Tags } from 'aws-cdk-lib';
import {
  ConfigError,
  contextJson,
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

export type PlatformApp = ReturnType<typeof buildApp>;

export interface BuildAppOptions {
  /** Context values, as `-c key=value` would give them. */
  readonly context?: Record<string, unknown>;
  // A cdk.json-shaped file whose `context.platform` the `platform` context is merged over (a `-c` key
  // is replaced whole: docs/operators/deploy.md, "One file, merged overrides").
  readonly configFile?: string;
  readonly outdir?: string;
  /** Run cdk-nag. @default true */
  readonly nag?: boolean;
  /** Refuse a reserved `platform.domain` (unless `-c synthOnly=true`). @default false */
  readonly deployable?: boolean;
  /** Run the Control Tower guard rules (lib/policy-validation.ts). @default - as `nag` */
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

/** The CDK app: validated config, the ten stacks (docs/operators/deploy.md), cdk-nag and the guard rules. */
export function buildApp(options: BuildAppOptions = {}) {
  const app = new App({ context: options.context, outdir: options.outdir });
  // Every value is validated here, before any construct reads it.
  const stackPrefix = validStackPrefix(app.node.tryGetContext('stackPrefix'));
  const config = loadConfig(contextJson('platform', fileConfig(options.configFile)), contextJson('platform', app.node.tryGetContext('platform')));
  const synthOnly = String(app.node.tryGetContext('synthOnly') ?? 'false') === 'true';
  if (options.deployable && !synthOnly) assertDeployableDomain(config);
  const env = { region: config.platform.region };
  // Tagged twice: on the stacks, and through Tags.of on every resource of the templates
  // (@aws-cdk/core:explicitStackTags keeps the two apart).
  const tags = environmentTags(config, stackPrefix);
  const common = { config, env, terminationProtection: config.environment.terminationProtection, tags };
  for (const [key, value] of Object.entries(tags)) Tags.of(app).add(key, value);

  const operationsStack = new OperationsStack(app, `${stackPrefix}-Operations`, {
    ...common,
    description: 'Messages platform: the alarm topic every alarm of this environment notifies',
  });
  const alarmTopic = operationsStack.alarms.topic;

  const dataStack = new DataStack(app, `${stackPrefix}-Data`, {
    ...common,
    description: 'Messages platform: stateful resources (tables, queues)',
  });
  const apiStack = new ApiStack(app, `${stackPrefix}-Api`, {
    ...common,
    messagesData: dataStack.messages,
    webhooksData: dataStack.webhooks,
    alarmTopic,
    description: 'Messages platform: Messages API, authorizer, worker, usage plans, alarms',
  });

  const edgeZoneStack = config.platform.hostedZone
    ? undefined
    : new EdgeZoneStack(app, `${stackPrefix}-EdgeZone`, {
        ...common,
        description: 'Projects platform: the platform hosted zone (retained; delegate the domain to its name servers)',
      });
  const edgeCertificateStack = new EdgeCertificateStack(app, `${stackPrefix}-EdgeCertificate`, {
    ...common,
    zone: edgeZoneStack?.platformZone.zone,
    description: 'Projects platform: the wildcard certificate for CloudFront (us-east-1), validated in the platform zone',
  });
  const domainsDataStack = new DomainsDataStack(app, `${stackPrefix}-DomainsData`, {
    ...common,
    edgeZone: edgeCertificateStack.edgeZone,
    description: 'Projects platform: stateful resources (tables, site bucket, KeyValueStore) and the multi-tenant edge',
  });
  const domainsStack = new DomainsStack(app, `${stackPrefix}-Domains`, {
    ...common,
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

  const edgeObservabilityStack = new EdgeObservabilityStack(app, `${stackPrefix}-EdgeObservability`, {
    ...common,
    distributionId: domainsDataStack.edge.distributionId,
    description: 'Projects platform: access logs, metrics and alarms of the customer sites\' distribution (us-east-1, where CloudFront publishes)',
  });
  const edgeWidgets = edgeDashboardWidgets(domainsDataStack.edge.distributionId, metricsNamespaceOf(app));
  apiStack.messages.opsDashboard.addWidgets(...edgeWidgets);

  const dashboardDomainPrefix: unknown = app.node.tryGetContext('dashboardDomainPrefix');
  const dashboardDataStack = new DashboardDataStack(app, `${stackPrefix}-DashboardData`, {
    ...common,
    domainPrefix: dashboardDomainPrefix === undefined ? undefined : String(dashboardDomainPrefix),
    description: 'Owners\' dashboard: stateful resources (Cognito user pool with managed login, Owners table)',
  });
  const dashboardStack = new DashboardStack(app, `${stackPrefix}-Dashboard`, {
    ...common,
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
  // edgeZoneStack is absent when `platform.hostedZone` names an existing zone.
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
