import { ACCOUNT_FLAG, ON_ACCOUNT, type Command, str } from '../command.js';
import { keysTable, keyText, maskedKey } from '../format.js';

const REVOKE_NOTE = 'The limiter refuses it from the next request on; the authorizer, which caches key lookups, within 30 s.';

export const KEY_COMMANDS: readonly Command[] = [
  {
    words: ['keys', 'create'],
    summary: 'Create an API key; its secret is shown this once',
    required: ['account', 'name'],
    flags: [ACCOUNT_FLAG, ['--name NAME', 'a name for the key (1 to 100 characters)']],
    examples: ['keys create --account acct_demo_pro --name "production"', 'keys create --account acct_demo_pro --name ci --json'],
    async run(ctx, values) {
      const created = await ctx.client.createKey(str(values, 'account'), str(values, 'name'));
      ctx.io.stderr.write('Store this secret now: it will not be shown again (only its SHA-256 hash is kept).\n');
      ctx.output(created, `Created key ${created.key.keyId}.\n${keyText(created.key)}\nsecret: ${created.secret}\n`);
    },
  },
  {
    words: ['keys', 'list'],
    summary: 'List the keys of an account (never their secrets)',
    ...ON_ACCOUNT,
    examples: ['keys list --account acct_demo_pro'],
    async run(ctx, values) {
      const keys = await ctx.client.listKeys(str(values, 'account'));
      ctx.output({ keys }, keysTable(keys));
    },
  },
  {
    words: ['keys', 'revoke'],
    summary: 'Revoke a key',
    required: ['account', 'key'],
    flags: [ACCOUNT_FLAG, ['--key KEY_ID', 'the key id (key_…), as keys list shows it']],
    examples: ['keys revoke --account acct_demo_pro --key key_0123456789abcdef0123'],
    async run(ctx, values) {
      const key = await ctx.client.revokeKey(str(values, 'account'), str(values, 'key'));
      ctx.output(key, `Revoked key ${key.keyId} (${maskedKey(key)}).\n${keyText(key)}${REVOKE_NOTE}\n`);
    },
  },
];
