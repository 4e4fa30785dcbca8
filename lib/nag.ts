import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * Runs the cdk-nag AWS Solutions rules on the whole app at synth time: any finding that is not
 * acknowledged (narrowly, on its construct, with a reason: see the constructs) fails `cdk synth`.
 */
export function applyNag(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
}
