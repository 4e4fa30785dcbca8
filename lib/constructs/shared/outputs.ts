import { CfnOutput } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/** A stack output whose logical id is its name, as the operator CLI and the docs read it. */
export function output(scope: Construct, name: string, value: string, description: string): CfnOutput {
  const out = new CfnOutput(scope, name, { value, description });
  out.overrideLogicalId(name);
  return out;
}
