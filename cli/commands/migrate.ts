import type { Command } from '../command.js';
import { migrationText } from '../format.js';

/** `accounts migrate`: to per-account limits (the platform's maintenance route). */
export const MIGRATE_COMMANDS: readonly Command[] = [
  {
    words: ['accounts', 'migrate'],
    summary: 'Move accounts from before per-account limits: shared budgets, one internal key per account (idempotent)',
    options: { account: { type: 'string' } },
    required: [],
    flags: [['--account ID', 'only this account (default: every account with keys)']],
    examples: [
      'accounts migrate --account acct_demo_pro',
      'accounts migrate --stack MessagesPlatform-Api --region eu-west-1',
    ],
    async run(ctx, values) {
      const result = await ctx.client.migrate(values.account as string | undefined);
      ctx.output(result, migrationText(result));
      if (result.changed.length > 0) {
        ctx.fail(`${result.changed.length} key record(s) changed during the run and were left alone`, 'run accounts migrate again');
      }
    },
  },
];
