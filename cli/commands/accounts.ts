import { PLAN_IDS } from '../../lib/config/index.js';
import { type Command, LIMIT_FLAGS, planInput, str } from '../command.js';
import { accountText } from '../format.js';

export const ACCOUNT_COMMANDS: readonly Command[] = [
  {
    words: ['accounts', 'create'],
    summary: 'Create an account on a plan',
    required: ['name', 'plan'],
    flags: [['--name NAME', 'account name (1 to 100 characters)'], ['--plan PLAN', `one of ${PLAN_IDS.join(', ')}`], ...LIMIT_FLAGS],
    examples: [
      'accounts create --name "Acme" --plan pro',
      'accounts create --name "Big Co" --plan enterprise --per-minute 5000 --per-day 1000000',
    ],
    async run(ctx, values) {
      const account = await ctx.client.createAccount({ name: str(values, 'name'), ...planInput(values) });
      ctx.output(account, `Created account ${account.accountId}.\n${accountText(account)}`);
    },
  },
  {
    words: ['accounts', 'show'],
    summary: 'Show an account: plan, limits in force',
    required: ['account'],
    flags: [['--account ID', 'the account id (acct_…)']],
    examples: ['accounts show --account acct_demo_pro'],
    async run(ctx, values) {
      const account = await ctx.client.getAccount(str(values, 'account'));
      ctx.output(account, accountText(account));
    },
  },
];
