import { ACCOUNT_FLAG, type Command, str } from '../command.js';

export const BAN_COMMANDS: readonly Command[] = [
  {
    words: ['bans', 'lift'],
    summary: 'Lift the temporary ban of a key',
    required: ['account', 'key'],
    flags: [ACCOUNT_FLAG, ['--key KEY_ID', 'the key id (key_…)']],
    examples: ['bans lift --account acct_demo_free --key key_0123456789abcdef0123'],
    async run(ctx, values) {
      const result = await ctx.client.liftBan(str(values, 'account'), str(values, 'key'));
      ctx.output(
        result,
        result.wasBanned ? `Lifted the ban on key ${result.keyId}.\n` : `Key ${result.keyId} was not banned; its strikes are cleared.\n`,
      );
    },
  },
];
