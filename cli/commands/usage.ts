import { type Command, str } from '../command.js';
import { usageText } from '../format.js';

/** `usage`. */
export const USAGE_COMMANDS: readonly Command[] = [
  {
    words: ['usage'],
    summary: 'The account\'s minute and day usage against its limits, with each key\'s share (revoked keys too) and bans',
    options: { account: { type: 'string' } },
    required: ['account'],
    flags: [['--account ID', 'the account id']],
    examples: ['usage --account acct_demo_pro', 'usage --account acct_demo_pro --json'],
    async run(ctx, values) {
      const usage = await ctx.client.usage(str(values, 'account'));
      ctx.output(usage, usageText(usage));
    },
  },
];
