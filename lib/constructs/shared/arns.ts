import { ArnFormat, type Stack } from 'aws-cdk-lib';

/** The ARN of an API Gateway management-API path of the stack's region, e.g. `/apikeys/*`. */
export function apigatewayArn(stack: Stack, path: string): string {
  return stack.formatArn({ service: 'apigateway', account: '', resource: path, arnFormat: ArnFormat.NO_RESOURCE_NAME });
}

/** The ARN of a CloudFront resource of the stack's account (CloudFront ARNs have no region). */
export function cloudfrontArn(stack: Stack, resource: string, resourceName: string): string {
  return stack.formatArn({ service: 'cloudfront', region: '', resource, resourceName });
}
