import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { output } from '../shared/outputs.js';

export interface AlarmTopicProps {
  /** Subscribed by e-mail (config `alarms.email`). @default - none: subscribe to the `AlarmTopicArn` output */
  readonly email?: string;
}

/**
 * The SNS topic every alarm of an environment (region) notifies, under a key of its own: the policy
 * of the AWS-managed `alias/aws/sns` key cannot grant the CloudWatch service principal.
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

    const description = 'Every alarm of this environment notifies this topic: subscribe e-mail, chat or a pager to it';
    output(this, 'AlarmTopicArn', this.topic.topicArn, description);
  }
}
