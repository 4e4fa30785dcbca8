import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { PlatformConfig } from '../../config/index.js';
import { metricsNamespaceOf } from '../../config/environment.js';
import { METRICS_NAMESPACE, PlatformFunction } from '../shared/platform-function.js';
import { DOMAIN_FLOW_DEFAULTS, type DomainFlowTasks, domainFlowDefinition } from '../../../contracts/domain-flow.js';
import { stackCreationId } from '../shared/names.js';
import { DomainDriftSchedule } from './drift-schedule.js';
import { notify, thresholdAlarm } from '../shared/alarms.js';
import { cloudfrontArn } from '../shared/arns.js';
import { acknowledgeNag } from '../shared/nag.js';
import { output } from '../shared/outputs.js';
import { CLOUDFRONT_CERTIFICATE_REGION, type Edge } from './edge.js';
import { nagArn } from '../dashboard/nag-arn.js';
import { DESCRIBES_CERTIFICATES, DRIFT_CHECK_ACTIONS, KVS_ACTIONS, TENANT_ACTIONS } from './flow-permissions.js';
import type { ProjectsData } from './projects-data.js';
import { DOMAIN_ENV, DOMAIN_HANDLERS } from '../../../contracts/domains.js';
import { DOMAINS_OUTPUTS } from '../../stacks/domains-stack-outputs.js';

/** Powertools service name of the seven flow tasks: the `service` dimension of their metrics. */
export const DOMAIN_FLOW_SERVICE = 'domains-flow';

/** The EMF metric Diagnose publishes per domain moved to `certificate_delayed` (the CertificateDelayed alarm's). */
export const DOMAIN_FLOW_METRICS = {
  namespace: METRICS_NAMESPACE,
  certificateDelayed: 'DomainsCertificateDelayed',
  dimensions: { service: DOMAIN_FLOW_SERVICE },
} as const;

export type FlowTask = keyof DomainFlowTasks;
/** The verification tasks (one module, DOMAIN_HANDLERS.flowTasks); releaseTenant and checkDrift have a module each. */
export const VERIFICATION_TASKS = Object.keys(DOMAIN_HANDLERS.flowTasks.handlers) as Exclude<FlowTask, 'releaseTenant' | 'checkDrift'>[];
export const FLOW_TASKS: readonly FlowTask[] = [...VERIFICATION_TASKS, 'releaseTenant', 'checkDrift'];

export interface DomainFlowProps {
  readonly config: PlatformConfig;
  readonly data: ProjectsData;
  readonly edge: Edge;
  /** The module exporting the verification handlers. @default DOMAIN_HANDLERS.flowTasks.entry */
  readonly flowTasksEntry?: string;
  /** Where alarms notify. @default - alarms without actions */
  readonly alarmTopic?: sns.ITopic;
}

/** The domain flow on AWS: seven tasks, each granted only what it calls (flow-permissions.ts). */
export class DomainFlow extends Construct {
  readonly functions: Readonly<Record<FlowTask, PlatformFunction>>;
  readonly stateMachine: sfn.StateMachine;
  readonly executionLog: logs.LogGroup;
  /** The only task grant on `Resource: *` besides X-Ray. */
  readonly tenantCreationPolicy: iam.Policy;
  readonly alarms: {
    readonly executionsFailed: cloudwatch.Alarm;
    readonly certificateDelayed: cloudwatch.Alarm;
    readonly driftCheckDropped: cloudwatch.Alarm;
  };

  readonly driftSchedule: DomainDriftSchedule;
  readonly startReleasePolicy: iam.Policy;

  constructor(scope: Construct, id: string, props: DomainFlowProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { data, edge, config } = props;
    const { projects, domains } = data.tables;

    // The release task reads no project: it gets the domain's table and the KVS only.
    const domainTables = {
      [DOMAIN_ENV.domainsTable]: domains.tableName,
      [DOMAIN_ENV.keyValueStoreArn]: data.keyValueStore.keyValueStoreArn,
    };
    const tables = { [DOMAIN_ENV.projectsTable]: projects.tableName, ...domainTables };
    const tenantEnvironment = {
      ...domainTables,
      [DOMAIN_ENV.distributionId]: edge.distributionId,
      [DOMAIN_ENV.connectionGroupId]: edge.connectionGroupId,
    };
    // The drift task: no tenant, distribution or bucket.
    const driftEnvironment = {
      ...tables,
      [DOMAIN_ENV.platformHost]: edge.platformHost,
      [DOMAIN_ENV.platformDomain]: config.platform.domain,
      [DOMAIN_ENV.driftGraceSeconds]: String(config.domains.driftCheck.gracePeriodDays * 24 * 60 * 60),
    };
    const environment = {
      ...tenantEnvironment,
      ...driftEnvironment,
      [DOMAIN_ENV.watchdogSeconds]: String(DOMAIN_FLOW_DEFAULTS.watchdogSeconds),
      [DOMAIN_ENV.siteBucket]: data.siteBucket.bucketName,
    };

    const descriptions: Record<FlowTask, string> = {
      verifyDns: 'Domain flow: verify the DNS records of a custom domain and record the result or its reason',
      requestCertificate: 'Domain flow: put the domain on its distribution tenant with a CloudFront-managed certificate (HTTP validation)',
      checkCertificate: 'Domain flow: poll the managed certificate; report issued, failed, or pending with the watchdog',
      activate: 'Domain flow: mark the domain active and serve it at the edge (KeyValueStore)',
      diagnose: 'Domain flow: certificate_delayed with a diagnosis (DNS still verifies? CAA blocks Amazon?)',
      releaseTenant: 'Domain flow: release a removed domain\'s distribution tenant (delete it with its last domain), then drop its edge refusal',
      checkDrift: 'Domain flow: re-check the DNS of a page of live domains; dns_misconfigured, back to active, or detached after the grace period',
    };
    const module = (task: FlowTask): { entry: string; handler: string; environment: Record<string, string> } => {
      if (task === 'releaseTenant') return { ...DOMAIN_HANDLERS.tenantRelease, environment: tenantEnvironment };
      if (task === 'checkDrift') return { ...DOMAIN_HANDLERS.driftCheck, environment: driftEnvironment };
      const { entry, handlers } = DOMAIN_HANDLERS.flowTasks;
      return { entry: props.flowTasksEntry ?? entry, handler: handlers[task], environment };
    };
    const fn = (task: FlowTask) =>
      new PlatformFunction(this, task.charAt(0).toUpperCase() + task.slice(1), {
        ...module(task),
        serviceName: DOMAIN_FLOW_SERVICE,
        description: descriptions[task],
        // A drift round checks up to 50 domains, 8 at a time, each lookup bounded by the resolver's timeouts.
        timeout: Duration.seconds(task === 'checkDrift' ? 120 : 30),
        // Kept for the flow during a Messages API flood (0: none); config protection.reservedConcurrency. The
        // drift check is not: it can wait for the flood to pass (its throttled rounds are retried).
        reservedConcurrentExecutions: task === 'checkDrift' ? undefined : config.protection.reservedConcurrency.domainFlowTask || undefined,
      });
    this.functions = Object.fromEntries(FLOW_TASKS.map((t) => [t, fn(t)])) as Record<FlowTask, PlatformFunction>;
    const functions = this.functions;

    // Tenants are created at run time, one per domain: their ids cannot be named here. Tenant ARNs
    // (arn:aws:cloudfront::<account>:distribution-tenant/<id>) carry no distribution id.
    const tenantArns = cloudfrontArn(stack, 'distribution-tenant', '*');
    // CloudFront-managed certificates are ACM certificates in us-east-1 of this account.
    const managedCertificateArns = stack.formatArn({
      service: 'acm',
      region: CLOUDFRONT_CERTIFICATE_REGION,
      resource: 'certificate',
      resourceName: '*',
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });

    for (const task of VERIFICATION_TASKS) {
      functions[task].allowItems(domains, 'GetItem', 'UpdateItem');
      functions[task].allowItems(projects, 'GetItem');
    }
    // The release only reads the domain: is it claimed again since its removal.
    functions.releaseTenant.allowItems(domains, 'GetItem');

    const { requestCertificate, checkCertificate, activate, releaseTenant } = functions;
    requestCertificate.allow([...TENANT_ACTIONS.requestCertificate], [tenantArns]);
    const ownPolicy = (policyId: string, task: PlatformFunction, statement: iam.PolicyStatementProps) =>
      new iam.Policy(this, policyId, { roles: [task.role], statements: [new iam.PolicyStatement(statement)] });
    // Neither has a resource type (Service Authorization Reference): granted on "*", in their own
    // policy. A ManagedCertificateRequest requests the ACM certificate with the caller's permissions.
    this.tenantCreationPolicy = ownPolicy('TenantCreationPolicy', requestCertificate, {
      sid: 'CreateProjectTenants',
      actions: ['cloudfront:CreateDistributionTenant', 'acm:RequestCertificate'],
      resources: ['*'],
    });
    checkCertificate.allow([...TENANT_ACTIONS.checkCertificate], [tenantArns]);
    releaseTenant.allow([...TENANT_ACTIONS.releaseTenant], [tenantArns]);
    for (const task of DESCRIBES_CERTIFICATES) functions[task].allow(['acm:DescribeCertificate'], [managedCertificateArns]);

    activate.allow([...KVS_ACTIONS.write], [data.keyValueStore.keyValueStoreArn]);
    releaseTenant.allow([...KVS_ACTIONS.forgetRefusal], [data.keyValueStore.keyValueStoreArn]);

    const { checkDrift } = functions;
    checkDrift.allow([...DRIFT_CHECK_ACTIONS.domains], [domains.tableArn]);
    checkDrift.allow([...DRIFT_CHECK_ACTIONS.projects], [projects.tableArn]);
    checkDrift.allow([...KVS_ACTIONS.write], [data.keyValueStore.keyValueStoreArn]);

    this.executionLog = new logs.LogGroup(this, 'ExecutionLog', {
      // The vended-logs prefix keeps Step Functions' log delivery out of the size-limited resource
      // policy. RETAINed, so the name carries this stack creation's id (the end of AWS::StackId).
      logGroupName: `/aws/vendedlogs/states/${stack.stackName}-domain-flow-${stackCreationId()}`,
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const arns = FLOW_TASKS.map((task) => [task, functions[task].function.functionArn]);
    const tasks = Object.fromEntries(arns) as Record<FlowTask, string>;
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      comment: 'Custom domain: verify DNS, certificate with a 30-minute watchdog, activate or diagnose; or release a removed domain\'s tenant; or check live domains for drift',
      definitionBody: sfn.DefinitionBody.fromString(stack.toJsonString(domainFlowDefinition(tasks))),
      tracingEnabled: true,
      logs: { destination: this.executionLog, level: sfn.LogLevel.ALL, includeExecutionData: true },
    });
    // The definition is a string, so CDK cannot derive the invoke grants: exactly the seven functions.
    this.stateMachine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: FLOW_TASKS.map((task) => functions[task].function.functionArn),
      }),
    );
    // A policy of its own, not the role's default one: each function depends on its default policy,
    // and the state machine on the functions, so a grant on the state machine there would be a cycle.
    this.startReleasePolicy = ownPolicy('StartReleasePolicy', checkDrift, {
      sid: 'StartReleaseOfDetachedDomains',
      actions: [...DRIFT_CHECK_ACTIONS.startRelease],
      resources: [this.stateMachine.stateMachineArn],
    });
    this.driftSchedule = new DomainDriftSchedule(this, 'DriftSchedule', {
      stateMachine: this.stateMachine,
      intervalMinutes: config.domains.driftCheck.intervalMinutes,
      alarmTopic: props.alarmTopic,
    });

    const executionsFailed = thresholdAlarm(
      this,
      'ExecutionsFailedAlarm',
      'A domain flow execution failed. Error DomainFlowFailed: a verification stopped on an unexpected error (e.g. a CloudFront quota on tenants or domains per tenant); the domain keeps its previous state and the owner can re-verify once the cause is fixed. Error TenantReleaseFailed: a removed domain\'s tenant could not be released (still refused after 24 hours, or the task kept failing); the domain is not served, but its tenant counts against the quota: read the execution (release-<domain>-...), fix the cause, then start it again with the same input. Error DriftCheckFailed: the drift check of live domains kept failing; domains it did not reach keep their state until the next scheduled run.',
      this.stateMachine.metricFailed({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      1,
    );
    const certificateDelayed = thresholdAlarm(
      this,
      'CertificateDelayedAlarm',
      'A custom domain reached certificate_delayed (no certificate 30 minutes after DNS verified). The domain record holds the diagnosis (DNS, CAA); check whether it is the customer\'s configuration or an ACM/CloudFront problem.',
      new cloudwatch.Metric({
        // The environment's namespace (the functions' POWERTOOLS_METRICS_NAMESPACE, PlatformFunction).
        namespace: metricsNamespaceOf(this),
        metricName: DOMAIN_FLOW_METRICS.certificateDelayed,
        dimensionsMap: { ...DOMAIN_FLOW_METRICS.dimensions },
        period: Duration.hours(1),
        statistic: cloudwatch.Stats.SUM,
      }),
      1,
    );
    notify(props.alarmTopic, executionsFailed, certificateDelayed);
    this.alarms = { executionsFailed, certificateDelayed, driftCheckDropped: this.driftSchedule.alarms.dropped };

    output(
      this,
      DOMAINS_OUTPUTS.domains.stateMachineArn,
      this.stateMachine.stateMachineArn,
      'The custom-domain flow (one execution per domain attempt, domainFlowExecutionName; one per release, domainReleaseExecutionName)',
    );

    this.acknowledgeNagFindings(stack, tenantArns, managedCertificateArns);
  }

  private acknowledgeNagFindings(stack: Stack, tenantArns: string, managedCertificateArns: string): void {
    const tenantFinding = `IAM5[Resource::${nagArn(stack, tenantArns)}]`;
    const tenantReason = (what: string) =>
      `Distribution tenants are created at run time, one per custom domain, so their ids cannot be named in the template, and tenant ARNs carry no distribution id to narrow on. The grant is limited to the tenant actions this task calls: ${what}.`;
    const reasons: Partial<Record<FlowTask, string>> = {
      requestCertificate: tenantReason('read, update and tag tenants and their managed certificates (no delete, no distribution or connection-group actions)'),
      checkCertificate: tenantReason('read tenants and their certificates, attach an issued certificate, check DNS (no delete)'),
      releaseTenant: tenantReason('read, update (take the domain off, disable) and delete the tenant of a removed domain'),
    };
    for (const [task, reason] of Object.entries(reasons) as [FlowTask, string][]) {
      acknowledgeNag(this.functions[task].role, { [tenantFinding]: reason });
    }
    for (const task of DESCRIBES_CERTIFICATES) {
      acknowledgeNag(this.functions[task].role, {
        [`IAM5[Resource::${nagArn(stack, managedCertificateArns)}]`]:
          'The CloudFront-managed certificates of the tenants are issued at run time in us-east-1, so their ARNs cannot be named in the template. The grant is acm:DescribeCertificate only (the resource schema lists it for tenant updates that carry a certificate; checkCertificate also reads the failure reason, e.g. CAA), on certificates of this account in us-east-1.',
      });
    }
    acknowledgeNag(this.tenantCreationPolicy, {
      'IAM5[Resource::*]':
        'cloudfront:CreateDistributionTenant and acm:RequestCertificate have no resource-level permissions (Service Authorization Reference), so they can only be granted on "*". They are in this separate policy of the RequestCertificate task alone; every other tenant action of the flow is on distribution-tenant ARNs.',
    });
    acknowledgeNag(this.stateMachine.role, {
      'IAM5[Resource::*]':
        'Added by CDK for the execution log and active tracing: the CloudWatch Logs log-delivery actions (logs:CreateLogDelivery, GetLogDelivery, UpdateLogDelivery, DeleteLogDelivery, ListLogDeliveries, PutResourcePolicy, DescribeResourcePolicies, DescribeLogGroups) and X-Ray writes, none of which supports resource-level permissions. The Lambda invoke grant names the six task functions.',
    });
  }
}
