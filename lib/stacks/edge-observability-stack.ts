import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config/index.js';
import { AlarmTopic } from '../constructs/operations/alarm-topic.js';
import { CLOUDFRONT_METRICS_REGION, EdgeObservability } from '../constructs/operations/edge-observability.js';

export interface EdgeObservabilityStackProps extends StackProps {
  readonly config: PlatformConfig;
  readonly distributionId: string;
}

/** us-east-1, where CloudFront publishes: the sites' access logs and alarms, with an alarm topic of that region. */
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
