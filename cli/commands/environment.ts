import { type Command, deployedOnly } from '../command.js';

export const ENVIRONMENT_COMMANDS: readonly Command[] = [
  {
    words: ['environment', 'teardown'],
    summary:
      'Remove what the environment created at run time (custom-domain tenants, internal-<account> API keys, ' +
      'enterprise-<account> usage plans) so that its stacks can be destroyed (deployed stack only)',
    required: ['yes'],
    flags: [
      ['--stack NAME', 'the environment\'s API stack, <stackPrefix>-Api (its DomainsData stack is found beside it)'],
      ['--yes', 'confirm: every customer domain of the environment stops being served'],
    ],
    examples: ['environment teardown --stack Staging-Api --region eu-west-1 --yes'],
    async run(ctx) {
      const stack = deployedOnly(
        ctx,
        'environment teardown works on a deployed environment: give --stack <stackPrefix>-Api',
        'the local platform keeps nothing after it stops; test/integration/environment-teardown.test.ts runs the same teardown on it',
      );
      const [{ awsRuntimeResources }, { teardownRuntimeResources }] = await Promise.all([
        import('../aws-environment-resources.js'),
        import('../environment-teardown.js'),
      ]);
      const report = await teardownRuntimeResources(await awsRuntimeResources(stack), {
        pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        progress: (line) => ctx.io.stderr.write(`${line}\n`),
      });
      ctx.output(
        report,
        `Removed ${report.tenants.length} distribution tenant(s), ${report.keys.length} API key(s), ${report.usagePlans.length} usage plan(s).\n` +
        'Next: turn termination protection off and destroy the stacks (docs/operators/teardown.md).\n',
      );
    },
  },
];
