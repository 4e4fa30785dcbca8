import { MAX_HISTORY_DAYS } from '../../lambda/usage-history/usage-days.js';
import { ACCOUNT_FLAG, ON_ACCOUNT, type Command, positiveInt, str } from '../command.js';
import { usageError } from '../errors.js';
import { usageHistoryText, usageText } from '../format.js';

export const USAGE_COMMANDS: readonly Command[] = [
  {
    words: ['usage'],
    summary: 'The account\'s minute and day usage against its limits, with each key\'s share (revoked keys too) and bans',
    ...ON_ACCOUNT,
    examples: ['usage --account acct_demo_pro', 'usage --account acct_demo_pro --json'],
    async run(ctx, values) {
      const usage = await ctx.client.usage(str(values, 'account'));
      ctx.output(usage, usageText(usage));
    },
  },
  {
    words: ['usage', 'history'],
    summary: 'The account\'s accepted and refused (429) requests per UTC day, up to 30 days, per key (revoked too) and in all',
    required: ['account'],
    flags: [ACCOUNT_FLAG, ['--days N', 'days to show, today included: 1 to 30 (default 30)']],
    examples: ['usage history --account acct_demo_pro', 'usage history --account acct_demo_pro --days 7 --json'],
    async run(ctx, values) {
      const days = values.days === undefined ? undefined : positiveInt('days', str(values, 'days'));
      if (days !== undefined && days > MAX_HISTORY_DAYS) {
        throw usageError(`--days must be from 1 to ${MAX_HISTORY_DAYS}, got ${days}`);
      }
      const history = await ctx.client.usageHistory(str(values, 'account'), days);
      ctx.output(history, usageHistoryText(history));
    },
  },
];
