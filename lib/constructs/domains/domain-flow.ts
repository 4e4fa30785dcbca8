import { ArnFormat, CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
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

/** Powertools service name of the five flow tasks: the `service` dimension of their metrics. */
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
 * The KeyValueStore data-plane actions of the Activate task, on the store's ARN only: what
 * KvsEdgeRouter.serve/redirect call (DescribeKeyValueStore for the ETag, then PutKey with IfMatch).
 */
export const KVS_ACTIONS = ['cloudfront-keyvaluestore:DescribeKeyValueStore', 'cloudfront-keyvaluestore:PutKey'] as const;

/** Tenant actions on distribution-tenant ARNs, per task (CloudFrontCertificateAuthority.request / .status). */
export const TENANT_ACTIONS = {
  requestCertificate: [
    'cloudfront:GetDistributionTenant',
    'cloudfront:GetManagedCertificateDetails',
    'cloudfront:UpdateDistributionTenant',
    // CreateDistributionTenant with Tags (projectId) is also authorized as TagResource on the new tenant.
    'cloudfront:TagResource',
  ],
  checkCertificate: [
    'cloudfront:GetDistributionTenant',
    'cloudfront:GetManagedCertificateDetails',
    // Attaches the issued managed certificate to the tenant (Customizations.Certificate).
    'cloudfront:UpdateDistributionTenant',
    // Part of the failure reason.
    'cloudfront:VerifyDnsConfiguration',
  ],
} as const;

export type FlowTask = keyof DomainFlowTasks;
export const FLOW_TASKS = Object.keys(DOMAIN_HANDLERS.flowTasks.handlers) as FlowTask[];

export interface DomainFlowProps {
  readonly config: PlatformConfig;
  /** Projects and Domains tables, site bucket, KeyValueStore (stateful stack). */
  readonly data: ProjectsDataResources;
  /** The distribution, connection group and platform host. */
  readonly edge: EdgeResources;
  /**
   * The module that exports the five task handlers (`DOMAIN_HANDLERS.flowTasks.handlers`),
   * relative to the repository root or absolute.
   * @default DOMAIN_HANDLERS.flowTasks.entry
   */
  readonly flowTasksEntry?: string;
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
 * (JSONPath, the document the local engine runs too) over five Lambda tasks from one handler
 * module, with execution logging (ALL) and X-Ray tracing, and two alarms: failed executions, and
 * domains that reached `certificate_delayed`.
 *
 * Least privilege, per task, from what the tasks call (lambda/domains/flow-tasks.ts with
 * CloudFrontCertificateAuthority and KvsEdgeRouter); DynamoDB item actions on table ARNs only:
 *
 * | task               | DynamoDB                          | CloudFront / ACM                                                                  |
 * | ------------------ | --------------------------------- | --------------------------------------------------------------------------------- |
 * | verifyDns          | Domains Get/Update, Projects Get  | none: public DNS                                                                  |
 * | requestCertificate | Domains Get/Update, Projects Get  | tenants: Get, GetManagedCertificateDetails, Update, Tag; Create + acm:RequestCertificate on `*` |
 * | checkCertificate   | Domains Get/Update, Projects Get  | tenants: Get, GetManagedCertificateDetails, Update, VerifyDnsConfiguration; acm:DescribeCertificate (us-east-1) |
 * | activate           | Domains Get/Update, Projects Get  | KeyValueStore: DescribeKeyValueStore, PutKey on the store's ARN                   |
 * | diagnose           | Domains Get/Update, Projects Get  | none: DNS and CAA through public DNS; the metric goes out as EMF in the log       |
 *
 * The flow needs no Accounts table (the plan gate is the control plane's, before the flow starts),
 * no tenant deletion (removal is the control plane's) and no Route 53: it does not write customers'
 * records.
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

    const environment: Record<string, string> = {
      [DOMAIN_ENV.projectsTable]: projects.tableName,
      [DOMAIN_ENV.domainsTable]: domains.tableName,
      [DOMAIN_ENV.platformHost]: edge.platformHost,
      [DOMAIN_ENV.platformDomain]: config.platform.domain,
      [DOMAIN_ENV.keyValueStoreArn]: data.keyValueStore.keyValueStoreArn,
      [DOMAIN_ENV.distributionId]: edge.distributionId,
      [DOMAIN_ENV.connectionGroupId]: edge.connectionGroupId,
      [DOMAIN_ENV.watchdogSeconds]: String(props.watchdogSeconds ?? DOMAIN_FLOW_DEFAULTS.watchdogSeconds),
      [DOMAIN_ENV.siteBucket]: data.siteBucket.bucketName,
      ...(props.dnsServers?.length ? { [DOMAIN_ENV.dnsServers]: props.dnsServers.join(',') } : {}),
    };

    const entry = props.flowTasksEntry ?? DOMAIN_HANDLERS.flowTasks.entry;
    const descriptions: Record<FlowTask, string> = {
      verifyDns: 'Domain flow: verify the DNS records of a custom domain and record the result or its reason',
      requestCertificate: 'Domain flow: put the domain on its distribution tenant with a CloudFront-managed certificate (HTTP validation)',
      checkCertificate: 'Domain flow: poll the managed certificate; report issued, failed, or pending with the watchdog',
      activate: 'Domain flow: mark the domain active and serve it at the edge (KeyValueStore)',
      diagnose: 'Domain flow: certificate_delayed with a diagnosis (DNS still verifies? CAA blocks Amazon?)',
    };
    const fn = (task: FlowTask, constructId: string) =>
      new PlatformFunction(this, constructId, {
        entry,
        handler: DOMAIN_HANDLERS.flowTasks.handlers[task],
        serviceName: DOMAIN_FLOW_SERVICE,
        description: descriptions[task],
        timeout: Duration.seconds(30),
        environment,
      });
    const functions: Record<FlowTask, PlatformFunction> = {
      verifyDns: fn('verifyDns', 'VerifyDns'),
      requestCertificate: fn('requestCertificate', 'RequestCertificate'),
      checkCertificate: fn('checkCertificate', 'CheckCertificate'),
      activate: fn('activate', 'Activate'),
      diagnose: fn('diagnose', 'Diagnose'),
    };
    this.functions = functions;

    // ---- Permissions --------------------------------------------------------------------------
    // Tenants are created at run time, one per project: their ids cannot be named here. Tenant
    // ARNs (arn:aws:cloudfront::<account>:distribution-tenant/<id>) carry no distribution id.
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

    for (const task of FLOW_TASKS) {
      functions[task].allowItems(domains, 'GetItem', 'UpdateItem');
      functions[task].allowItems(projects, 'GetItem');
    }
    const { verifyDns, requestCertificate, checkCertificate, activate, diagnose } = functions;

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
    checkCertificate.allow(['acm:DescribeCertificate'], [managedCertificateArns]);

    activate.allow([...KVS_ACTIONS], [data.keyValueStore.keyValueStoreArn]);

    // ---- State machine ------------------------------------------------------------------------
    this.executionLog = new logs.LogGroup(this, 'ExecutionLog', {
      // The vended-logs prefix keeps Step Functions' log delivery out of the size-limited
      // CloudWatch Logs resource policy.
      logGroupName: `/aws/vendedlogs/states/${stack.stackName}-domain-flow`,
      retention: props.executionLogRetention ?? logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const tasks: DomainFlowTasks = {
      verifyDns: verifyDns.function.functionArn,
      requestCertificate: requestCertificate.function.functionArn,
      checkCertificate: checkCertificate.function.functionArn,
      activate: activate.function.functionArn,
      diagnose: diagnose.function.functionArn,
    };
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      comment: 'Custom domain: verify DNS, certificate with a 30-minute watchdog, activate or diagnose',
      definitionBody: sfn.DefinitionBody.fromString(stack.toJsonString(domainFlowDefinition(tasks))),
      tracingEnabled: true,
      logs: { destination: this.executionLog, level: sfn.LogLevel.ALL, includeExecutionData: true },
    });
    // The definition is a string, so CDK cannot derive the invoke grants: exactly the five functions.
    this.stateMachine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: FLOW_TASKS.map((task) => functions[task].function.functionArn),
      }),
    );

    // ---- Alarms -------------------------------------------------------------------------------
    const executionsFailed = new cloudwatch.Alarm(this, 'ExecutionsFailedAlarm', {
      alarmDescription:
        'A domain flow execution failed (an unexpected error, e.g. a CloudFront quota on tenants or domains per tenant): the domain keeps its previous state. Read the execution in the Step Functions console; the owner can re-verify once the cause is fixed.',
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
      description: 'The custom-domain flow (start one execution per domain attempt, name domainFlowExecutionName)',
    });
    stateMachineArnOutput.overrideLogicalId(DOMAIN_FLOW_OUTPUTS.stateMachineArn);
    this.outputs = { stateMachineArn: stateMachineArnOutput };

    this.acknowledgeNagFindings(stack, tenantArns, managedCertificateArns);
  }

  private acknowledgeNagFindings(stack: Stack, tenantArns: string, managedCertificateArns: string): void {
    const { requestCertificate, checkCertificate } = this.functions;
    const tenantFinding = `AwsSolutions::AwsSolutions-IAM5[Resource::${nagArn(stack, tenantArns)}]`;
    const tenantReason =
      'Distribution tenants are created at run time, one per project with custom domains, so their ids cannot be named in the template, and tenant ARNs carry no distribution id to narrow on. The grant is limited to the tenant actions this task calls (no delete, no distribution or connection-group actions).';
    for (const fn of [requestCertificate, checkCertificate]) {
      Validations.of(fn.role).acknowledge({ id: tenantFinding, reason: tenantReason });
    }
    Validations.of(checkCertificate.role).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagArn(stack, managedCertificateArns)}]`,
      reason:
        'The CloudFront-managed certificates of the tenants are issued at run time in us-east-1, so their ARNs cannot be named in the template. The grant is acm:DescribeCertificate only (read the failure reason, e.g. CAA), on certificates of this account in us-east-1.',
    });
    Validations.of(this.tenantCreationPolicy).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'cloudfront:CreateDistributionTenant and acm:RequestCertificate have no resource-level permissions (Service Authorization Reference), so they can only be granted on "*". They are in this separate policy of the RequestCertificate task alone; every other tenant action of the flow is on distribution-tenant ARNs.',
    });
    const role = this.stateMachine.role;
    Validations.of(role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'Added by CDK for the execution log and active tracing: the CloudWatch Logs log-delivery actions (logs:CreateLogDelivery, GetLogDelivery, UpdateLogDelivery, DeleteLogDelivery, ListLogDeliveries, PutResourcePolicy, DescribeResourcePolicies, DescribeLogGroups) and X-Ray writes, none of which supports resource-level permissions. The Lambda invoke grant names the five task functions.',
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
