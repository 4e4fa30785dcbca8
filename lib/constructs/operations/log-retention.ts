import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/**
 * API Gateway writes a REST stage's execution logs to `API-Gateway-Execution-Logs_<api id>/<stage>`,
 * a log group it creates itself, without retention, and that outlives the stack. Created here
 * first (the stage depends on it), the group has a retention and goes with the stack.
 * Name: "Set up CloudWatch logging for REST APIs in API Gateway" (API Gateway developer guide).
 */
export function retainExecutionLogs(
  scope: Construct,
  id: string,
  stage: apigw.Stage,
  /** The stage's name as a literal (`stage.stageName` is a reference to the stage itself: a cycle). */
  stageName: string,
  retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH,
): logs.LogGroup {
  const group = new logs.LogGroup(scope, id, {
    logGroupName: `API-Gateway-Execution-Logs_${stage.restApi.restApiId}/${stageName}`,
    retention,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  stage.node.addDependency(group);
  return group;
}

/** WAF requires the name of a CloudWatch Logs destination to start with this ("Logging destinations", AWS WAF developer guide). */
export const WAF_LOG_GROUP_PREFIX = 'aws-waf-logs-';

export interface WebAclLoggingProps {
  readonly webAcl: wafv2.CfnWebACL;
  /** @default logs.RetentionDays.THREE_MONTHS */
  readonly retention?: logs.RetentionDays;
}

/**
 * AWS WAF logging of a web ACL to a CloudWatch Logs group of its own (`aws-waf-logs-<stack>-<id>`),
 * with retention, and the group's resource policy for the log delivery service written here,
 * scoped to this group and account, so that WAF does not widen an account-wide policy itself.
 */
export class WebAclLogging extends Construct {
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: WebAclLoggingProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const logGroupName = `${WAF_LOG_GROUP_PREFIX}${stack.stackName}-${id}`.slice(0, 512);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName,
      retention: props.retention ?? logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // WAF takes the group's ARN without the ":*" suffix of Fn::GetAtt Arn.
    const logGroupArn = stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: logGroupName, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    const policy = logDeliveryPolicy(this, logGroupArn);
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
 * The resource policy that lets the log delivery service ("Logs sent to CloudWatch Logs", vended
 * logs) write into a log group of this account: WAF's logs here, CloudFront's access logs
 * (edge-observability.ts). `logGroupArn` is the group's ARN without the ":*" suffix.
 */
export function logDeliveryPolicy(scope: Construct, logGroupArn: string): logs.ResourcePolicy {
  const stack = Stack.of(scope);
  return new logs.ResourcePolicy(scope, 'DeliveryPolicy', {
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
}
