import type { CfnOutput } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { PlatformConfig } from '../../config/index.js';
import { OPERATOR_OUTPUTS, type OperatorOutput } from '../../stacks/api-stack-outputs.js';
import type { ApiFirewall } from './api-firewall.js';
import type { MessagesData } from './messages-data.js';
import { createMessagesFunctions, type MessagesFunctions, type MessagesFunctionsProps } from './messages-functions.js';
import {
  createMessagesAlarms,
  createOpsDashboard,
  DEFAULT_API_LATENCY_P99_THRESHOLD_MS,
  type MessagesAlarms,
} from './messages-observability.js';
import { createMessagesRestApi, type MessagesRestApiProps } from './messages-rest-api.js';
import { createOperatorPolicy } from './operator-policy.js';
import { output } from '../shared/outputs.js';
import { createUsagePlanBackstop } from './usage-plan-backstop.js';

export interface MessagesApiProps
  extends Pick<MessagesRestApiProps, 'executionLogLevel' | 'manageCloudWatchRole' | 'accessLogRetention'>,
  Pick<MessagesFunctionsProps, 'processor' | 'processorEnvironment'> {
  readonly config: PlatformConfig;
  readonly data: MessagesData;
  /** Where alarms notify. @default - alarms have no actions; they are visible in CloudWatch only */
  readonly alarmTopic?: sns.ITopic;
}

/** The Messages API; its parts are created in this scope, so logical ids do not depend on the split into files. */
export class MessagesApi extends Construct {
  readonly api: apigw.RestApi;
  readonly stage: apigw.Stage;
  readonly firewall: ApiFirewall;
  readonly authorizer: apigw.RequestAuthorizer;
  readonly functions: MessagesFunctions;
  /** The worker's role, which runs the processor: grant it what the processor needs (e.g. `table.grantReadData(api.processorGrantPrincipal)`). */
  readonly processorGrantPrincipal: iam.IPrincipal;

  /** The backstop usage plan and its pooled internal API key, per usage identifier (usage-plan-backstop.ts). */
  readonly usagePlans: ReturnType<typeof createUsagePlanBackstop>;
  /** What the account service needs to run against this API (also stack outputs, see OPERATOR_OUTPUTS). */
  readonly usagePlanTargets: {
    readonly restApiId: string;
    readonly stageName: string;
    readonly standardPlanIds: { readonly free: string; readonly pro: string; readonly business: string };
    /** Attach to an operator role to run the account service (operator CLI) against this stack. */
    readonly operatorPolicy: iam.ManagedPolicy;
  };

  /** The outputs the operator CLI reads (OPERATOR_OUTPUTS), by name. */
  readonly operatorOutputs: Readonly<Record<OperatorOutput, CfnOutput>>;
  readonly alarms: MessagesAlarms;

  /** The ops dashboard (CloudWatch, for operators; not the owners' dashboard app). */
  readonly opsDashboard: cloudwatch.Dashboard;

  addProcessorEnvironment(key: string, value: string): void {
    this.functions.worker.function.addEnvironment(key, value);
  }

  constructor(scope: Construct, id: string, props: MessagesApiProps) {
    super(scope, id);
    const { config, data } = props;
    const { tables, queue, deadLetterQueue } = data;

    this.functions = createMessagesFunctions(this, props);
    this.processorGrantPrincipal = this.functions.worker.grantPrincipal;
    const restApi = createMessagesRestApi(this, { ...props, functions: this.functions });
    this.api = restApi.api;
    this.stage = restApi.stage;
    this.authorizer = restApi.authorizer;
    this.firewall = restApi.firewall;
    this.usagePlans = createUsagePlanBackstop(this, {
      config,
      api: this.api,
      stage: this.stage,
      authorizer: this.functions.authorizer,
    });

    this.usagePlanTargets = {
      restApiId: this.api.restApiId,
      stageName: this.stage.stageName,
      standardPlanIds: {
        free: this.usagePlans.free.plan.usagePlanId,
        pro: this.usagePlans.pro.plan.usagePlanId,
        business: this.usagePlans.business.plan.usagePlanId,
      },
      operatorPolicy: createOperatorPolicy(this, data),
    };

    const observed = {
      api: this.api,
      functions: this.functions,
      data,
      apiLatencyP99ThresholdMs: config.alarms.apiLatencyP99ThresholdMs ?? DEFAULT_API_LATENCY_P99_THRESHOLD_MS,
    };
    this.alarms = createMessagesAlarms(this, { ...observed, alarmTopic: props.alarmTopic });
    this.opsDashboard = createOpsDashboard(this, { ...observed, alarms: this.alarms });

    output(this, 'ApiUrl', this.api.url, 'Base URL of the Messages API (stage v1)');
    output(this, 'QueueUrl', queue.queueUrl, 'Messages queue');
    output(this, 'DeadLetterQueueUrl', deadLetterQueue.queueUrl, 'Dead-letter queue of the messages queue (redrive source)');
    output(this, 'ApiKeysTableName', tables.apiKeys.tableName, 'API keys table');
    output(this, 'AccountsTableName', tables.accounts.tableName, 'Accounts table');
    output(this, 'RateLimitsTableName', tables.rateLimits.tableName, 'Rate limiter table');
    output(this, 'MessagesTableName', tables.messages.tableName, 'Messages table');
    output(this, 'IdempotencyTableName', tables.idempotency.tableName, 'Idempotency table');
    output(this, 'OpsDashboardName', this.opsDashboard.dashboardName, 'Ops dashboard: the CloudWatch dashboard of the Messages API (operators)');
    const cp = this.usagePlanTargets;
    const operatorOutput = (name: OperatorOutput, value: string, description: string) =>
      output(this, OPERATOR_OUTPUTS[name], value, description);
    this.operatorOutputs = {
      restApiId: operatorOutput('restApiId', cp.restApiId, 'REST API id (control plane: usage plans)'),
      stageName: operatorOutput('stageName', cp.stageName, 'Stage of the REST API the usage plans apply to'),
      freeUsagePlanId: operatorOutput('freeUsagePlanId', cp.standardPlanIds.free, 'Usage plan of Free keys'),
      proUsagePlanId: operatorOutput('proUsagePlanId', cp.standardPlanIds.pro, 'Usage plan of Pro keys'),
      businessUsagePlanId: operatorOutput('businessUsagePlanId', cp.standardPlanIds.business, 'Usage plan of Business keys'),
      operatorPolicyArn: operatorOutput(
        'operatorPolicyArn',
        cp.operatorPolicy.managedPolicyArn,
        'Managed policy an operator role attaches to run the control plane (operator CLI) against this stack',
      ),
    };
  }
}
