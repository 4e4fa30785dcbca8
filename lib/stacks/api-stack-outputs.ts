import type { PlatformConfig } from '../config/index.js';

// No aws-cdk-lib here: the operator CLI reads the same names.

/** The Api stack output holding the effective platform config (JSON). */
export const PLATFORM_CONFIG_OUTPUT = 'PlatformConfig';

/** Our own ceiling (CloudFormation's for a parameter value): its quotas name none for an output. */
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

/** The outputs from which the operator CLI builds the account service's adapters against a deployed stack. */
export const OPERATOR_OUTPUTS = {
  restApiId: 'RestApiId',
  stageName: 'StageName',
  freeUsagePlanId: 'FreeUsagePlanId',
  proUsagePlanId: 'ProUsagePlanId',
  businessUsagePlanId: 'BusinessUsagePlanId',
  operatorPolicyArn: 'OperatorPolicyArn',
} as const;
export type OperatorOutput = keyof typeof OPERATOR_OUTPUTS;
