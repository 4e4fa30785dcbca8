import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config/index.js';
import { AlarmTopic } from '../constructs/operations/alarm-topic.js';

export interface OperationsStackProps extends StackProps {
  readonly config: PlatformConfig;
}

/**
 * Where operators hear about trouble: the environment's alarm topic. Its own stack, deployed
 * before the others, so that a subscription survives the redeploys of the stacks whose alarms
 * publish to it.
 */
export class OperationsStack extends Stack {
  readonly alarms: AlarmTopic;

  constructor(scope: Construct, id: string, props: OperationsStackProps) {
    const { config, ...stackProps } = props;
    super(scope, id, stackProps);
    this.alarms = new AlarmTopic(this, 'Alarms', { email: config.alarms.email });
  }
}
