import { ArnFormat, CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/** The topic's output (fixed logical id): what an operator subscribes a pager, chat or e-mail to. */
export const ALARM_TOPIC_OUTPUTS = { alarmTopicArn: 'AlarmTopicArn' } as const;

export interface AlarmTopicProps {
  /**
   * Subscribed by e-mail (config `alarms.email`). AWS mails a confirmation link first; until it is
   * followed, nothing is delivered.
   * @default - no subscription: subscribe one to the `AlarmTopicArn` output
   */
  readonly email?: string;
}

/**
 * The one place every alarm of an environment notifies: an SNS topic, encrypted with a key of
 * its own, since CloudWatch cannot publish to a topic under the AWS-managed `alias/aws/sns` key
 * (that key's policy cannot grant the CloudWatch service principal). Alarms of every regional
 * stack add it as their alarm and OK action (lib/app.ts passes it to each stack).
 */
export class AlarmTopic extends Construct {
  readonly topic: sns.Topic;
  readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: AlarmTopicProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    const fromAlarmsOfThisAccount = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
    };

    this.key = new kms.Key(this, 'Key', {
      description: `${stack.stackName}: encrypts the alarm topic (CloudWatch alarms may use it)`,
      enableKeyRotation: true,
      // The topic holds no data at rest worth keeping: the key goes with the stack.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromAlarmsOfThisAccount,
      }),
    );

    // Grants only for AWS services acting on AWS resources (Control Tower CT.KMS.PR.3): nobody
    // can hand the key's use to another principal with a grant.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'GrantsOnlyForAwsServices',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['kms:CreateGrant'],
        resources: ['*'],
        conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
      }),
    );

    this.topic = new sns.Topic(this, 'Topic', {
      displayName: `${stack.stackName} alarms`,
      masterKey: this.key,
      enforceSSL: true,
    });
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromAlarmsOfThisAccount,
      }),
    );
    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));

    const output = new CfnOutput(this, ALARM_TOPIC_OUTPUTS.alarmTopicArn, {
      value: this.topic.topicArn,
      description: 'Every alarm of this environment notifies this topic: subscribe e-mail, chat or a pager to it',
    });
    output.overrideLogicalId(ALARM_TOPIC_OUTPUTS.alarmTopicArn);
  }
}
