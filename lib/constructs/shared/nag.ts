import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** Acknowledges cdk-nag AwsSolutions findings on `scope`: rule (`CFR1`, `IAM5[Resource::*]`) → reason. */
export function acknowledgeNag(scope: IConstruct, reasons: Readonly<Record<string, string>>): void {
  for (const [rule, reason] of Object.entries(reasons)) {
    Validations.of(scope).acknowledge({ id: `AwsSolutions::AwsSolutions-${rule}`, reason });
  }
}
