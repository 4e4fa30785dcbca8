import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { AlarmTopic } from '../constructs/operations/alarm-topic.js';
import { CLOUDFRONT_METRICS_REGION, EdgeObservability } from '../constructs/operations/edge-observability.js';
import type { PlatformStackProps } from './operations-stack.js';

/** us-east-1, where CloudFront publishes: the sites' access logs and alarms, with an alarm topic of that region. */
export class EdgeObservabilityStack extends Stack {
  readonly alarms: AlarmTopic;

  constructor(scope: Construct, id: string, props: PlatformStackProps & { readonly distributionId: string }) {
    const { config, distributionId, ...stackProps } = props;
    const env = { ...stackProps.env, region: CLOUDFRONT_METRICS_REGION };
    super(scope, id, { ...stackProps, env, crossRegionReferences: true });
    this.alarms = new AlarmTopic(this, 'Alarms', { email: config.alarms.email });
    new EdgeObservability(this, 'Sites', { distributionId, alarmTopic: this.alarms.topic });
  }
}
