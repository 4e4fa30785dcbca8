import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config/index.js';
import { AlarmTopic } from '../constructs/operations/alarm-topic.js';
import { CLOUDFRONT_METRICS_REGION, EdgeObservability } from '../constructs/operations/edge-observability.js';

export interface EdgeObservabilityStackProps extends StackProps {
  readonly config: PlatformConfig;
  /** The multi-tenant distribution of the customer sites (DomainsData stack, platform region). */
  readonly distributionId: string;
}

/**
 * us-east-1: the customer-sites distribution's access logs, metric and alarms (CloudFront
 * publishes its metrics and delivers its logs there), with the environment's second alarm topic:
 * a CloudWatch alarm notifies a topic of its own region, so the Operations stack's topic cannot
 * serve here. The same `alarms.email` is subscribed to both.
 */
export class EdgeObservabilityStack extends Stack {
  readonly alarms: AlarmTopic;
  readonly edge: EdgeObservability;

  constructor(scope: Construct, id: string, props: EdgeObservabilityStackProps) {
    const { config, distributionId, ...stackProps } = props;
    const env = { ...stackProps.env, region: CLOUDFRONT_METRICS_REGION };
    super(scope, id, { ...stackProps, env, crossRegionReferences: true });
    this.alarms = new AlarmTopic(this, 'Alarms', { email: config.alarms.email });
    this.edge = new EdgeObservability(this, 'Sites', { distributionId, alarmTopic: this.alarms.topic });
  }
}
