import { Stack } from 'aws-cdk-lib';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { MessagesApi } from '../constructs/messages/messages-api.js';
import { STAGE_NAME } from '../constructs/messages/messages-rest-api.js';
import { retainExecutionLogs, WebAclLogging } from '../constructs/operations/log-retention.js';
import { output } from '../constructs/shared/outputs.js';
import type { MessagesData } from '../constructs/messages/messages-data.js';
import { Webhooks } from '../constructs/webhooks/webhooks.js';
import type { WebhooksData } from '../constructs/webhooks/webhooks-data.js';
import { PLATFORM_CONFIG_OUTPUT, platformConfigOutputValue } from './api-stack-outputs.js';
import type { PlatformStackProps } from './operations-stack.js';

export interface ApiStackProps extends PlatformStackProps {
  readonly messagesData: MessagesData;
  readonly webhooksData: WebhooksData;
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
    });
    retainExecutionLogs(this, 'MessagesExecutionLogs', this.messages.stage, STAGE_NAME);
    new WebAclLogging(this, 'FirewallLogs', { webAcl: this.messages.firewall.webAcl });
    this.webhooks = new Webhooks(this, 'Webhooks', { data: props.webhooksData, alarmTopic: props.alarmTopic });
    this.webhooks.connectWorker(this.messages.functions.worker);
    // An output, not an SSM parameter: the CLI reads this stack's outputs already, and it changes
    // with the very deploy that changes the config.
    output(
      this,
      PLATFORM_CONFIG_OUTPUT,
      platformConfigOutputValue(props.config),
      'The effective platform config (defaults merged with deploy-time overrides, validated), JSON: the operator CLI uses its plans, limits and backstop',
    );
  }
}
