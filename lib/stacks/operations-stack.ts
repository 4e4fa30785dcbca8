import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { PlatformConfig } from '../config/index.js';
import { AlarmTopic } from '../constructs/operations/alarm-topic.js';

/** The props of a stack that reads the platform config. */
export interface PlatformStackProps extends StackProps {
  readonly config: PlatformConfig;
}

/** The environment's alarm topic, in a stack of its own so that subscriptions outlive the other stacks' redeploys. */
export class OperationsStack extends Stack {
  readonly alarms: AlarmTopic;

  constructor(scope: Construct, id: string, props: PlatformStackProps) {
    super(scope, id, props);
    this.alarms = new AlarmTopic(this, 'Alarms', { email: props.config.alarms.email });
  }
}
