import { PLAN_IDS } from '../../lib/config/index.js';
import { ACCOUNT_FLAG, type Command, LIMIT_FLAGS, planInput, str } from '../command.js';
import { accountText, upgradeRequestsText } from '../format.js';

export const PLAN_COMMANDS: readonly Command[] = [
  {
    words: ['plans', 'set'],
    summary: 'Move an account to a plan (Enterprise with custom limits)',
    required: ['account', 'plan'],
    flags: [ACCOUNT_FLAG, ['--plan PLAN', `one of ${PLAN_IDS.join(', ')}`], ...LIMIT_FLAGS],
    examples: [
      'plans set --account acct_demo_free --plan business',
      'plans set --account acct_demo_free --plan enterprise --per-minute 2000 --per-day 500000',
    ],
    async run(ctx, values) {
      const account = await ctx.client.setPlan(str(values, 'account'), planInput(values));
      ctx.output(account, `Account ${account.accountId} is on the ${account.plan} plan; its keys have the new limits from their next request.\n${accountText(account)}`);
    },
  },
  {
    words: ['plans', 'requests'],
    summary: 'List owners\' pending requests for a higher plan (approve one with plans set)',
    examples: ['plans requests', 'plans requests --stack MessagesPlatform-Api --region eu-west-1'],
    async run(ctx) {
      const upgradeRequests = await ctx.client.upgradeRequests();
      ctx.output({ upgradeRequests }, upgradeRequestsText(upgradeRequests));
    },
  },
];
