import { ArnFormat, Aws, CfnOutput, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { PlatformConfig } from '../../config/index.js';
import { METRICS_NAMESPACE, PlatformFunction } from '../shared/platform-function.js';
import { DOMAIN_FLOW_DEFAULTS, type DomainFlowTasks, domainFlowDefinition } from './domain-flow-definition.js';
import { CLOUDFRONT_CERTIFICATE_REGION, type EdgeResources } from './edge.js';
import type { ProjectsDataResources } from './projects-data.js';
import { DOMAIN_ENV, DOMAIN_HANDLERS } from './runtime-contract.js';

/** Powertools service name of the six flow tasks: the `service` dimension of their metrics. */
export const DOMAIN_FLOW_SERVICE = 'domains-flow';

/**
 * The custom metric the Diagnose task publishes (Powertools Metrics, EMF: no IAM needed) once per
 * domain it moves to `certificate_delayed`: namespace `MessagesPlatform`, dimension
 * `service=domains-flow`, unit Count. The CertificateDelayed alarm watches exactly this.
 */
export const DOMAIN_FLOW_METRICS = {
  namespace: METRICS_NAMESPACE,
  certificateDelayed: 'DomainsCertificateDelayed',
  dimensions: { service: DOMAIN_FLOW_SERVICE },
} as const;

/** The flow's output (fixed logical id). */
export const DOMAIN_FLOW_OUTPUTS = { stateMachineArn: 'StateMachineArn' } as const;

/**
 * The KeyValueStore data-plane actions, on the store's ARN only (the key-value-store resource type):
 * `write` is what KvsEdgeRouter.serve/redirect/refuse call (DescribeKeyValueStore for the ETag, then
 * PutKey with IfMatch); `forgetRefusal` is its clean-up after a release (GetKey, DeleteKey).
 */
export const KVS_ACTIONS = {
  write: ['cloudfront-keyvaluestore:DescribeKeyValueStore', 'cloudfront-keyvaluestore:PutKey'],
  forgetRefusal: [
    'cloudfront-keyvaluestore:DescribeKeyValueStore',
    'cloudfront-keyvaluestore:GetKey',
    'cloudfront-keyvaluestore:DeleteKey',
  ],
} as const;

/**
 * Tenant actions on distribution-tenant ARNs, per task, from what it calls
 * (CloudFrontCertificateAuthority.request / .status / .release) and, for creating or updating a
 * tenant with a managed certificate, what the AWS::CloudFront::DistributionTenant resource schema
 * lists for that (its create and update handlers: GetManagedCertificateDetails, TagResource,
 * VerifyDnsConfiguration, with acm:DescribeCertificate and acm:RequestCertificate). wafv2:GetWebACL,
 * also listed there, is for a tenant whose customizations name a web ACL: no call here passes one.
 * cloudfront:GetVpcOrigin, a dependent action of Create/UpdateDistributionTenant in the Service
 * Authorization Reference, concerns VPC origins, which the distribution does not have.
 */
export const TENANT_ACTIONS = {
  requestCertificate: [
    'cloudfront:GetDistributionTenant',
    'cloudfront:GetManagedCertificateDetails',
    'cloudfront:UpdateDistributionTenant',
    // CreateDistributionTenant with Tags (projectId) is also authorized as TagResource on the new tenant.
    'cloudfront:TagResource',
    'cloudfront:VerifyDnsConfiguration',
  ],
  checkCertificate: [
    'cloudfront:GetDistributionTenant',
    'cloudfront:GetManagedCertificateDetails',
    // Attaches the issued managed certificate to the tenant (Customizations.Certificate).
    'cloudfront:UpdateDistributionTenant',
    // Part of the failure reason.
    'cloudfront:VerifyDnsConfiguration',
  ],
  // Takes the domain off (or disables), then deletes; the schema's delete handler lists the same three.
  releaseTenant: ['cloudfront:GetDistributionTenant', 'cloudfront:UpdateDistributionTenant', 'cloudfront:DeleteDistributionTenant'],
} as const;

/**
 * Tasks whose UpdateDistributionTenant sends a certificate (a managed certificate request, or the
 * tenant's Customizations.Certificate sent back as read or attached): the resource schema's update
 * handler lists acm:DescribeCertificate for that. checkCertificate also calls it itself.
 */
export const DESCRIBES_CERTIFICATES = ['requestCertificate', 'checkCertificate', 'releaseTenant'] as const;

export type FlowTask = keyof DomainFlowTasks;
/** The verification tasks (one module, DOMAIN_HANDLERS.flowTasks); releaseTenant has its own module. */
export const VERIFICATION_TASKS = Object.keys(DOMAIN_HANDLERS.flowTasks.handlers) as Exclude<FlowTask, 'releaseTenant'>[];
export const FLOW_TASKS: readonly FlowTask[] = [...VERIFICATION_TASKS, 'releaseTenant'];

/**
 * `name` followed by the id of this stack's creation (the UUID at the end of AWS::StackId): a name
 * that a RETAINed resource of an earlier, destroyed stack of the same name does not already hold.
 */
export function uniquePerStackCreation(name: string): string {
  return `${name}-${Fn.select(2, Fn.split('/', Aws.STACK_ID))}`;
}

export interface DomainFlowProps {
  readonly config: PlatformConfig;
  /** Projects and Domains tables, site bucket, KeyValueStore (stateful stack). */
  readonly data: ProjectsDataResources;
  /** The distribution, connection group and platform host. */
  readonly edge: EdgeResources;
  /**
   * The module that exports the five verification task handlers (`DOMAIN_HANDLERS.flowTasks.handlers`),
   * relative to the repository root or absolute.
   * @default DOMAIN_HANDLERS.flowTasks.entry
   */
  readonly flowTasksEntry?: string;
  /**
   * The module that exports the release task's handler (`DOMAIN_HANDLERS.tenantRelease.handler`).
   * @default DOMAIN_HANDLERS.tenantRelease.entry
   */
  readonly tenantReleaseEntry?: string;
  /**
   * Seconds without a certificate before the flow diagnoses (`WATCHDOG_SECONDS`).
   * @default DOMAIN_FLOW_DEFAULTS.watchdogSeconds (30 minutes)
   */
  readonly watchdogSeconds?: number;
  /**
   * Resolvers (host:port) for the flow's DNS checks (`DNS_SERVERS`).
   * @default - the Lambda runtime's resolver
   */
  readonly dnsServers?: readonly string[];
  /**
   * Where alarms notify (alarm and OK actions).
   * @default - no actions; the alarms are visible in CloudWatch only
   */
  readonly alarmTopic?: sns.ITopic;
  /**
   * Retention of the state machine's execution log.
   * @default logs.RetentionDays.THREE_MONTHS
   */
  readonly executionLogRetention?: logs.RetentionDays;
}

/**
 * The custom-domain flow on AWS: a Standard state machine running exactly `domainFlowDefinition`
 * (JSONPath, the document the local engine runs too) over six Lambda tasks (the five verification
 * tasks from one handler module, the release task from its own), with execution logging (ALL) and
 * X-Ray tracing, and two alarms: failed executions (a verification stopped by an unexpected error,
 * or a tenant release that kept failing), and domains that reached `certificate_delayed`.
 *
 * Least privilege, per task, from what the tasks call (lambda/domains/flow-tasks.ts and
 * release-task.ts with CloudFrontCertificateAuthority and KvsEdgeRouter); DynamoDB item actions on
 * table ARNs only; tenant actions per TENANT_ACTIONS on distribution-tenant ARNs:
 *
 * | task               | DynamoDB                          | CloudFront / ACM / KeyValueStore                                                  |
 * | ------------------ | --------------------------------- | --------------------------------------------------------------------------------- |
 * | verifyDns          | Domains Get/Update, Projects Get  | none: public DNS                                                                  |
 * | requestCertificate | Domains Get/Update, Projects Get  | tenants: Get, GetManagedCertificateDetails, Update, Tag, VerifyDnsConfiguration; acm:DescribeCertificate (us-east-1); Create + acm:RequestCertificate on `*` |
 * | checkCertificate   | Domains Get/Update, Projects Get  | tenants: Get, GetManagedCertificateDetails, Update, VerifyDnsConfiguration; acm:DescribeCertificate (us-east-1) |
 * | activate           | Domains Get/Update, Projects Get  | KeyValueStore: DescribeKeyValueStore, PutKey on the store's ARN                   |
 * | diagnose           | Domains Get/Update, Projects Get  | none: DNS and CAA through public DNS; the metric goes out as EMF in the log       |
 * | releaseTenant      | Domains Get, Projects Get         | tenants: Get, Update, Delete; acm:DescribeCertificate (us-east-1); KeyValueStore: DescribeKeyValueStore, GetKey, DeleteKey |
 *
 * The flow needs no Accounts table (the plan gate is the control plane's, before the flow starts)
 * and no Route 53: it does not write customers' records.
 */
export class DomainFlow extends Construct {
  readonly functions: Readonly<Record<FlowTask, PlatformFunction>>;
  readonly stateMachine: sfn.StateMachine;
  readonly executionLog: logs.LogGroup;
  /** Tenant creation and the certificate request CloudFront makes on the caller's behalf: the only task grant on `Resource: *` besides X-Ray. */
  readonly tenantCreationPolicy: iam.Policy;
  readonly alarms: {
    readonly executionsFailed: cloudwatch.Alarm;
    readonly certificateDelayed: cloudwatch.Alarm;
  };

  readonly outputs: Readonly<Record<keyof typeof DOMAIN_FLOW_OUTPUTS, CfnOutput>>;

  constructor(scope: Construct, id: string, props: DomainFlowProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { data, edge, config } = props;
    const { projects, domains } = data.tables;

    const tenantEnvironment: Record<string, string> = {
      [DOMAIN_ENV.projectsTable]: projects.tableName,
      [DOMAIN_ENV.domainsTable]: domains.tableName,
      [DOMAIN_ENV.keyValueStoreArn]: data.keyValueStore.keyValueStoreArn,
      [DOMAIN_ENV.distributionId]: edge.distributionId,
      [DOMAIN_ENV.connectionGroupId]: edge.connectionGroupId,
    };
    const environment: Record<string, string> = {
      ...tenantEnvironment,
      [DOMAIN_ENV.platformHost]: edge.platformHost,
      [DOMAIN_ENV.platformDomain]: config.platform.domain,
      [DOMAIN_ENV.watchdogSeconds]: String(props.watchdogSeconds ?? DOMAIN_FLOW_DEFAULTS.watchdogSeconds),
      [DOMAIN_ENV.siteBucket]: data.siteBucket.bucketName,
      ...(props.dnsServers?.length ? { [DOMAIN_ENV.dnsServers]: props.dnsServers.join(',') } : {}),
    };

    const descriptions: Record<FlowTask, string> = {
      verifyDns: 'Domain flow: verify the DNS records of a custom domain and record the result or its reason',
      requestCertificate: 'Domain flow: put the domain on its distribution tenant with a CloudFront-managed certificate (HTTP validation)',
      checkCertificate: 'Domain flow: poll the managed certificate; report issued, failed, or pending with the watchdog',
      activate: 'Domain flow: mark the domain active and serve it at the edge (KeyValueStore)',
      diagnose: 'Domain flow: certificate_delayed with a diagnosis (DNS still verifies? CAA blocks Amazon?)',
      releaseTenant: 'Domain flow: release a removed domain\'s distribution tenant (delete it with its last domain), then drop its edge refusal',
    };
    const fn = (task: FlowTask, constructId: string) => {
      const release = task === 'releaseTenant';
      return new PlatformFunction(this, constructId, {
        entry: release
          ? props.tenantReleaseEntry ?? DOMAIN_HANDLERS.tenantRelease.entry
          : props.flowTasksEntry ?? DOMAIN_HANDLERS.flowTasks.entry,
        handler: release ? DOMAIN_HANDLERS.tenantRelease.handler : DOMAIN_HANDLERS.flowTasks.handlers[task],
        serviceName: DOMAIN_FLOW_SERVICE,
        description: descriptions[task],
        timeout: Duration.seconds(30),
        // Kept for the flow during a Messages API flood (0: none); config protection.reservedConcurrency.
        reservedConcurrentExecutions: config.protection.reservedConcurrency.domainFlowTask || undefined,
        environment: release ? tenantEnvironment : environment,
      });
    };
    const functions: Record<FlowTask, PlatformFunction> = {
      verifyDns: fn('verifyDns', 'VerifyDns'),
      requestCertificate: fn('requestCertificate', 'RequestCertificate'),
      checkCertificate: fn('checkCertificate', 'CheckCertificate'),
      activate: fn('activate', 'Activate'),
      diagnose: fn('diagnose', 'Diagnose'),
      releaseTenant: fn('releaseTenant', 'ReleaseTenant'),
    };
    this.functions = functions;

    // ---- Permissions --------------------------------------------------------------------------
    // Tenants are created at run time, one per domain: their ids cannot be named here. Tenant ARNs
    // (arn:aws:cloudfront::<account>:distribution-tenant/<id>) carry no distribution id.
    const tenantArns = stack.formatArn({
      service: 'cloudfront',
      region: '',
      resource: 'distribution-tenant',
      resourceName: '*',
    });
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
    // The release only reads: is the domain claimed again, and by which project's tenant.
    functions.releaseTenant.allowItems(domains, 'GetItem');
    functions.releaseTenant.allowItems(projects, 'GetItem');

    const { requestCertificate, checkCertificate, activate, releaseTenant } = functions;
    requestCertificate.allow([...TENANT_ACTIONS.requestCertificate], [tenantArns]);
    // CreateDistributionTenant has no resource type (Service Authorization Reference): it can only
    // be granted on "*". A ManagedCertificateRequest (on create, or on update when a domain joins
    // the tenant) makes CloudFront request the ACM certificate with the caller's permissions, and
    // acm:RequestCertificate has no resource type either. Both live in their own policy.
    this.tenantCreationPolicy = new iam.Policy(this, 'TenantCreationPolicy', {
      roles: [requestCertificate.role],
      statements: [
        new iam.PolicyStatement({
          sid: 'CreateProjectTenants',
          actions: ['cloudfront:CreateDistributionTenant', 'acm:RequestCertificate'],
          resources: ['*'],
        }),
      ],
    });
    checkCertificate.allow([...TENANT_ACTIONS.checkCertificate], [tenantArns]);
    releaseTenant.allow([...TENANT_ACTIONS.releaseTenant], [tenantArns]);
    for (const task of DESCRIBES_CERTIFICATES) functions[task].allow(['acm:DescribeCertificate'], [managedCertificateArns]);

    activate.allow([...KVS_ACTIONS.write], [data.keyValueStore.keyValueStoreArn]);
    releaseTenant.allow([...KVS_ACTIONS.forgetRefusal], [data.keyValueStore.keyValueStoreArn]);

    // ---- State machine ------------------------------------------------------------------------
    this.executionLog = new logs.LogGroup(this, 'ExecutionLog', {
      // The vended-logs prefix keeps Step Functions' log delivery out of the size-limited
      // CloudWatch Logs resource policy. RETAINed, so the name carries this stack creation's id:
      // a stack created again after `cdk destroy` must not collide with the group left behind.
      logGroupName: uniquePerStackCreation(`/aws/vendedlogs/states/${stack.stackName}-domain-flow`),
      retention: props.executionLogRetention ?? logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const arns = FLOW_TASKS.map((task) => [task, functions[task].function.functionArn]);
    const tasks = Object.fromEntries(arns) as Record<FlowTask, string>;
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      comment: 'Custom domain: verify DNS, certificate with a 30-minute watchdog, activate or diagnose; or release a removed domain\'s tenant',
      definitionBody: sfn.DefinitionBody.fromString(stack.toJsonString(domainFlowDefinition(tasks))),
      tracingEnabled: true,
      logs: { destination: this.executionLog, level: sfn.LogLevel.ALL, includeExecutionData: true },
    });
    // The definition is a string, so CDK cannot derive the invoke grants: exactly the six functions.
    this.stateMachine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: FLOW_TASKS.map((task) => functions[task].function.functionArn),
      }),
    );

    // ---- Alarms -------------------------------------------------------------------------------
    const executionsFailed = new cloudwatch.Alarm(this, 'ExecutionsFailedAlarm', {
      alarmDescription:
        'A domain flow execution failed. Error DomainFlowFailed: a verification stopped on an unexpected error (e.g. a CloudFront quota on tenants or domains per tenant); the domain keeps its previous state and the owner can re-verify once the cause is fixed. Error TenantReleaseFailed: a removed domain\'s tenant could not be released (still refused after 24 hours, or the task kept failing); the domain is not served, but its tenant counts against the quota: read the execution (release-<domain>-...), fix the cause, then start it again with the same input.',
      metric: this.stateMachine.metricFailed({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const certificateDelayed = new cloudwatch.Alarm(this, 'CertificateDelayedAlarm', {
      alarmDescription:
        'A custom domain reached certificate_delayed (no certificate 30 minutes after DNS verified). The domain record holds the diagnosis (DNS, CAA); check whether it is the customer\'s configuration or an ACM/CloudFront problem.',
      metric: new cloudwatch.Metric({
        namespace: DOMAIN_FLOW_METRICS.namespace,
        metricName: DOMAIN_FLOW_METRICS.certificateDelayed,
        dimensionsMap: { ...DOMAIN_FLOW_METRICS.dimensions },
        period: Duration.hours(1),
        statistic: cloudwatch.Stats.SUM,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarms = { executionsFailed, certificateDelayed };
    if (props.alarmTopic) {
      const action = new cwActions.SnsAction(props.alarmTopic);
      for (const alarm of Object.values(this.alarms)) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }

    const stateMachineArnOutput = new CfnOutput(this, DOMAIN_FLOW_OUTPUTS.stateMachineArn, {
      value: this.stateMachine.stateMachineArn,
      description: 'The custom-domain flow (one execution per domain attempt, domainFlowExecutionName; one per release, domainReleaseExecutionName)',
    });
    stateMachineArnOutput.overrideLogicalId(DOMAIN_FLOW_OUTPUTS.stateMachineArn);
    this.outputs = { stateMachineArn: stateMachineArnOutput };

    this.acknowledgeNagFindings(stack, tenantArns, managedCertificateArns);
  }

  private acknowledgeNagFindings(stack: Stack, tenantArns: string, managedCertificateArns: string): void {
    const tenantFinding = `AwsSolutions::AwsSolutions-IAM5[Resource::${nagArn(stack, tenantArns)}]`;
    const tenantReason = (what: string) =>
      `Distribution tenants are created at run time, one per custom domain, so their ids cannot be named in the template, and tenant ARNs carry no distribution id to narrow on. The grant is limited to the tenant actions this task calls: ${what}.`;
    const reasons: Partial<Record<FlowTask, string>> = {
      requestCertificate: tenantReason('read, update and tag tenants and their managed certificates (no delete, no distribution or connection-group actions)'),
      checkCertificate: tenantReason('read tenants and their certificates, attach an issued certificate, check DNS (no delete)'),
      releaseTenant: tenantReason('read, update (take the domain off, disable) and delete the tenant of a removed domain'),
    };
    for (const [task, reason] of Object.entries(reasons) as [FlowTask, string][]) {
      Validations.of(this.functions[task].role).acknowledge({ id: tenantFinding, reason });
    }
    for (const task of DESCRIBES_CERTIFICATES) {
      Validations.of(this.functions[task].role).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagArn(stack, managedCertificateArns)}]`,
        reason:
          'The CloudFront-managed certificates of the tenants are issued at run time in us-east-1, so their ARNs cannot be named in the template. The grant is acm:DescribeCertificate only (the resource schema lists it for tenant updates that carry a certificate; checkCertificate also reads the failure reason, e.g. CAA), on certificates of this account in us-east-1.',
      });
    }
    Validations.of(this.tenantCreationPolicy).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'cloudfront:CreateDistributionTenant and acm:RequestCertificate have no resource-level permissions (Service Authorization Reference), so they can only be granted on "*". They are in this separate policy of the RequestCertificate task alone; every other tenant action of the flow is on distribution-tenant ARNs.',
    });
    const role = this.stateMachine.role;
    Validations.of(role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'Added by CDK for the execution log and active tracing: the CloudWatch Logs log-delivery actions (logs:CreateLogDelivery, GetLogDelivery, UpdateLogDelivery, DeleteLogDelivery, ListLogDeliveries, PutResourcePolicy, DescribeResourcePolicies, DescribeLogGroups) and X-Ray writes, none of which supports resource-level permissions. The Lambda invoke grant names the six task functions.',
    });
  }
}

/**
 * An ARN as cdk-nag writes it in a finding id (IAM5 `Resource::`): unresolved pseudo parameters
 * as `<AWS::Name>`, everything else literal.
 */
export function nagArn(stack: Stack, arn: string): string {
  const render = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string' && v.Ref.startsWith('AWS::')) return `<${v.Ref}>`;
    const join = v['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(render).join(join[0]);
    throw new Error(`nagArn: cannot render ${JSON.stringify(value)}`);
  };
  return render(stack.resolve(arn));
}
