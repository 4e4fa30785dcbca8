import type { PlatformConfig } from '../config/index.js';

// Kept apart from api-stack.ts (no aws-cdk-lib here): the operator CLI reads the same names.

/** The Api stack output holding the deployment's effective platform config (JSON), which the operator CLI reads. */
export const PLATFORM_CONFIG_OUTPUT = 'PlatformConfig';

/**
 * Largest `PlatformConfig` output value, in bytes. CloudFormation's quotas name no size for the
 * value of an output that is not exported (exported values: 1,024 characters); 4,096 bytes, its
 * limit for a parameter value, is our own conservative ceiling, about four times today's config.
 */
export const PLATFORM_CONFIG_OUTPUT_MAX_BYTES = 4_096;

/** The config as the `PlatformConfig` output publishes it; throws (failing synth) when it is too large. */
export function platformConfigOutputValue(config: PlatformConfig): string {
  const value = JSON.stringify(config);
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > PLATFORM_CONFIG_OUTPUT_MAX_BYTES) {
    throw new Error(
      `the ${PLATFORM_CONFIG_OUTPUT} stack output would be ${bytes} bytes, above its ${PLATFORM_CONFIG_OUTPUT_MAX_BYTES}-byte ceiling: shorten the platform config (e.g. plan display names)`,
    );
  }
  return value;
}

/**
 * Stack outputs (fixed logical ids) from which the operator CLI builds the account service's
 * adapters against a deployed stack (ApiGatewayUsagePlanGateway, DynamoDB stores); MessagesApi
 * writes them.
 */
export const OPERATOR_OUTPUTS = {
  restApiId: 'RestApiId',
  stageName: 'StageName',
  freeUsagePlanId: 'FreeUsagePlanId',
  proUsagePlanId: 'ProUsagePlanId',
  businessUsagePlanId: 'BusinessUsagePlanId',
  operatorPolicyArn: 'OperatorPolicyArn',
} as const;
export type OperatorOutput = keyof typeof OPERATOR_OUTPUTS;
