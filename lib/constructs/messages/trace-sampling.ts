import { Names } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as xray from 'aws-cdk-lib/aws-xray';
import type { Construct } from 'constructs';

/**
 * The Messages API's X-Ray sampling: one trace a second, then 1 % (X-Ray's default rule takes 5 %).
 * API Gateway decides and the authorizer and handlers follow it, so this sets how many requests
 * are traced end to end; at volume it is the traces' share of the bill (bench/README.md, cost-per-million).
 */
export const MESSAGES_API_TRACE_SAMPLING = { reservoirPerSecond: 1, fixedRate: 0.01 } as const;

/** The sampling rule of the Messages API's stage, matched by its ARN (docs/operators/operations.md, "Traces"). */
export function addTraceSampling(scope: Construct, stage: apigw.Stage): xray.CfnSamplingRule {
  const rule = new xray.CfnSamplingRule(scope, 'TraceSampling', {});
  rule.samplingRule = {
    // Unique per account and region (a second stack gets its own), at most 32 characters.
    ruleName: Names.uniqueResourceName(rule, { maxLength: 32 }),
    priority: 1000,
    reservoirSize: MESSAGES_API_TRACE_SAMPLING.reservoirPerSecond,
    fixedRate: MESSAGES_API_TRACE_SAMPLING.fixedRate,
    resourceArn: stage.stageArn,
    serviceName: '*',
    serviceType: 'AWS::ApiGateway::Stage',
    host: '*',
    httpMethod: '*',
    urlPath: '*',
    version: 1,
  };
  return rule;
}
