import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/**
 * A REST stage's execution log group, which API Gateway would create itself without retention and
 * leave behind: created first, it has one and goes with the stack. `stageName` is a literal
 * (`stage.stageName` references the stage: a cycle).
 */
export function retainExecutionLogs(scope: Construct, id: string, stage: apigw.Stage, stageName: string) {
  const group = new logs.LogGroup(scope, id, {
    logGroupName: `API-Gateway-Execution-Logs_${stage.restApi.restApiId}/${stageName}`,
    retention: logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  stage.node.addDependency(group);
  return group;
}

/**
 * WAF logging of a web ACL to a log group of its own (WAF requires the `aws-waf-logs-` prefix), with
 * the delivery policy written here, scoped to this group, so that WAF does not widen an account-wide one.
 */
export class WebAclLogging extends Construct {
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: { readonly webAcl: wafv2.CfnWebACL }) {
    super(scope, id);
    const stack = Stack.of(this);
    const logGroupName = `aws-waf-logs-${stack.stackName}-${id}`.slice(0, 512);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName,
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const { logGroupArn, policy } = logDelivery(this, logGroupName);
    const logging = new wafv2.CfnLoggingConfiguration(this, 'Configuration', {
      resourceArn: props.webAcl.attrArn,
      logDestinationConfigs: [logGroupArn],
      // Never the Authorization header: it carries customers' API keys.
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
    });
    logging.node.addDependency(this.logGroup, policy);
  }
}

/**
 * A log group as a destination of the log delivery service (vended logs): its ARN without the ":*"
 * of Fn::GetAtt Arn, and the resource policy that lets the service write into it.
 */
export function logDelivery(scope: Construct, logGroupName: string) {
  const stack = Stack.of(scope);
  const arnFormat = ArnFormat.COLON_RESOURCE_NAME;
  const logGroupArn = stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: logGroupName, arnFormat });
  const policy = new logs.ResourcePolicy(scope, 'DeliveryPolicy', {
    policyStatements: [
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('delivery.logs.amazonaws.com')],
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [`${logGroupArn}:log-stream:*`],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'logs', resource: '*', arnFormat: ArnFormat.NO_RESOURCE_NAME }) },
        },
      }),
    ],
  });
  return { logGroupArn, policy };
}
