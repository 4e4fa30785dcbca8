import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config/index.js';
import { MessagesApi } from '../constructs/messages/messages-api.js';
import { STAGE_NAME } from '../constructs/messages/messages-rest-api.js';
import { retainExecutionLogs, WebAclLogging } from '../constructs/operations/log-retention.js';
import type { MessagesDataResources } from '../constructs/messages/messages-data.js';
import { Webhooks } from '../constructs/webhooks/webhooks.js';
import type { WebhooksDataResources } from '../constructs/webhooks/webhooks-data.js';
import { PLATFORM_CONFIG_OUTPUT, platformConfigOutputValue } from './api-stack-outputs.js';

export interface ApiStackProps extends StackProps {
  readonly config: PlatformConfig;
  /** The Messages tables and queues, from the DataStack. */
  readonly messagesData: MessagesDataResources;
  /** The webhooks table and delivery queue, from the DataStack. */
  readonly webhooksData: WebhooksDataResources;
  /**
   * Where alarms notify.
   * @default - alarms without actions
   */
  readonly alarmTopic?: ITopic;
}

/** Stateless: the REST API, its functions, usage plans and alarms. */
export class ApiStack extends Stack {
  readonly messages: MessagesApi;
  readonly webhooks: Webhooks;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    this.messages = new MessagesApi(this, 'Messages', {
      config: props.config,
      data: props.messagesData,
      alarmTopic: props.alarmTopic,
      // One environment per account and region owns the account-wide API Gateway logging role.
      manageCloudWatchRole: props.config.environment.apiGatewayAccountRole,
      apiLatencyP99ThresholdMs: props.config.alarms.apiLatencyP99ThresholdMs,
    });
    // Every log group with a retention: API Gateway's execution logs, and WAF's requests.
    retainExecutionLogs(this, 'MessagesExecutionLogs', this.messages.stage, STAGE_NAME);
    new WebAclLogging(this, 'FirewallLogs', { webAcl: this.messages.firewall.webAcl });
    // Owners' webhooks, fed by the worker's outcomes.
    this.webhooks = new Webhooks(this, 'Webhooks', { data: props.webhooksData, alarmTopic: props.alarmTopic });
    this.webhooks.connectWorker(this.messages.functions.worker);
    // A stack output rather than an SSM parameter: the CLI already reads this stack's outputs
    // (DescribeStacks, or the cdk --outputs-file), so it needs no new permission or call, and the
    // value changes with the very deploy that changes the config.
    new CfnOutput(this, PLATFORM_CONFIG_OUTPUT, {
      value: platformConfigOutputValue(props.config),
      description: 'The effective platform config (defaults merged with deploy-time overrides, validated), JSON: the operator CLI uses its plans, limits and backstop',
    }).overrideLogicalId(PLATFORM_CONFIG_OUTPUT);
  }
}
