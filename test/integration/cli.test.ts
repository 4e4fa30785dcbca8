import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliOutcome as Outcome, runCli } from '../support/cli.js';
import type { UsageView } from '../../cli/operator-client.js';
import { send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The operator CLI (npm run platform) against the local platform's control API: in process
// through run() for most cases, and as a real process (bin/platform.ts) for a few.

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

/** Every invocation and what it printed: secrets must show up in `keys create` output only. */
const transcript: Array<{ argv: readonly string[] } & Outcome> = [];
const secrets: string[] = [];

async function cliWith(env: Record<string, string | undefined>, argv: readonly string[]): Promise<Outcome> {
  const outcome = await runCli(argv, env);
  transcript.push({ argv, ...outcome });
  return outcome;
}

/** The CLI in process, against the test platform's control API. */
const cli = (...argv: string[]) => cliWith({}, [...argv, '--url', platform.controlUrl]);

async function json<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  const out = await cli(...argv, '--json');
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as T;
}

async function newAccount(plan: string, ...extra: string[]): Promise<string> {
  const account = await json<{ accountId: string }>('accounts', 'create', '--name', `cli ${plan}`, '--plan', plan, ...extra);
  return account.accountId;
}

async function newKey(accountId: string, name = 'test key'): Promise<{ secret: string; keyId: string }> {
  const created = await json<{ secret: string; key: { keyId: string } }>('keys', 'create', '--account', accountId, '--name', name);
  secrets.push(created.secret);
  return { secret: created.secret, keyId: created.key.keyId };
}

const limitOf = (headers: Headers) => Number(headers.get('x-ratelimit-limit'));

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('accounts', () => {
  it('accounts create prints the account; --json prints exactly the account document', async () => {
    const human = await cli('accounts', 'create', '--name', 'Acme', '--plan', 'pro');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Created account acct_\w+\.\n/);
    expect(human.stdout).toMatch(/^plan +pro$/m);
    expect(human.stdout).toMatch(/^limits +300\/min, 10000\/day \(plan\)$/m);
    expect(human.stdout).toMatch(/^created +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/m);
    expect(human.stderr).toBe('');

    const out = await cli('accounts', 'create', '--name', 'Big Co', '--plan', 'enterprise', '--per-minute', '7', '--per-day', '70', '--json');
    expect(out.code).toBe(0);
    const account = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(account).toMatchObject({
      name: 'Big Co',
      plan: 'enterprise',
      limits: { perMinute: 7, perDay: 70 },
      customLimits: true,
    });
    expect(account.accountId).toMatch(/^acct_/);
  });

  it('accounts show prints an account, as key-value lines or JSON', async () => {
    const accountId = platform.demoAccounts.business.accountId;
    const human = await cli('accounts', 'show', '--account', accountId);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^account +${accountId}$`, 'm'));
    expect(human.stdout).toMatch(/^limits +1000\/min, 100000\/day \(plan\)$/m);
    expect(await json('accounts', 'show', '--account', accountId)).toMatchObject({ accountId, plan: 'business' });
  });
});

describe('keys', () => {
  it('keys create shows the secret once, with a warning on stderr; the key works on POST /messages with its plan limits', async () => {
    const accountId = await newAccount('pro');
    const out = await cli('keys', 'create', '--account', accountId, '--name', 'production');
    expect(out.code).toBe(0);
    const secret = /^secret: (sk_live_[0-9A-Za-z]{36})$/m.exec(out.stdout)?.[1] as string;
    expect(secret).toBeDefined();
    secrets.push(secret);
    expect(out.stdout.split(secret)).toHaveLength(2); // once
    expect(out.stderr).toContain('Store this secret now: it will not be shown again');
    expect(out.stderr).not.toContain(secret);
    expect(out.stdout).toContain(`${secret.slice(0, 12)}…${secret.slice(-4)}`);

    const answer = await send(platform, secret);
    expect(answer.status).toBe(202);
    expect(limitOf(answer.headers)).toBe(300);
  });

  it('keys create --json holds the secret and the key', async () => {
    const accountId = await newAccount('free');
    const out = await cli('keys', 'create', '--account', accountId, '--name', 'ci', '--json');
    expect(out.code).toBe(0);
    const created = JSON.parse(out.stdout) as { secret: string; key: Record<string, unknown> };
    secrets.push(created.secret);
    expect(created.secret).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
    expect(created.key).toMatchObject({ name: 'ci', status: 'active', prefix: created.secret.slice(0, 12), last4: created.secret.slice(-4) });
    expect(out.stderr).toContain('will not be shown again');
    expect((await send(platform, created.secret)).status).toBe(202);
  });

  it('keys list shows id, name, masked key, status, created and last used; never a secret', async () => {
    const accountId = await newAccount('free');
    const used = await newKey(accountId, 'used');
    const idle = await newKey(accountId, 'idle');
    expect((await send(platform, used.secret)).status).toBe(202);

    const human = await cli('keys', 'list', '--account', accountId);
    expect(human.code).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +KEY +STATUS +CREATED +LAST USED$/);
    expect(lines).toHaveLength(3);
    const usedLine = lines.find((l) => l.startsWith(used.keyId)) as string;
    expect(usedLine).toContain(`${used.secret.slice(0, 12)}…${used.secret.slice(-4)}`);
    expect(usedLine).toMatch(/ active +\d{4}-\d\d-\d\dT[\d:.]+Z +\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    expect(lines.find((l) => l.startsWith(idle.keyId))).toMatch(/ active +\S+Z +-$/);
    // The header's columns line up with the rows'.
    expect(usedLine.indexOf(' active ') + 1).toBe((lines[0] as string).indexOf('STATUS'));

    const { keys } = await json<{ keys: Array<Record<string, unknown>> }>('keys', 'list', '--account', accountId);
    expect(keys.map((k) => k.keyId).sort()).toEqual([used.keyId, idle.keyId].sort());
    expect(keys.find((k) => k.keyId === used.keyId)?.lastUsedAt).toBe(new Date(platform.clock.now()).toISOString());
    for (const key of keys) expect(Object.keys(key)).not.toContain('secret');
  });

  it('keys revoke: the next request with the key gets 401', async () => {
    const accountId = await newAccount('pro');
    const { secret, keyId } = await newKey(accountId);
    expect((await send(platform, secret)).status).toBe(202);

    const human = await cli('keys', 'revoke', '--account', accountId, '--key', keyId);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`Revoked key ${keyId}`);
    expect(human.stdout).toMatch(/^status +revoked$/m);
    expect(human.stdout).toContain('within 30 s');
    expect((await send(platform, secret)).status).toBe(401);

    // Revoking again is harmless; --json gives the key.
    expect(await json('keys', 'revoke', '--account', accountId, '--key', keyId)).toMatchObject({ keyId, status: 'revoked' });
    expect((await json<{ keys: Array<{ status: string }> }>('keys', 'list', '--account', accountId)).keys[0]?.status).toBe('revoked');
  });
});

describe('plans and usage', () => {
  it('plans set changes X-RateLimit-Limit on the next request; Enterprise custom limits are enforced', async () => {
    const accountId = await newAccount('free');
    const { secret } = await newKey(accountId);
    expect(limitOf((await send(platform, secret)).headers)).toBe(60);

    const human = await cli('plans', 'set', '--account', accountId, '--plan', 'business');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^plan +business$/m);
    expect(human.stdout).toMatch(/^updated +\S+Z$/m);
    expect(limitOf((await send(platform, secret)).headers)).toBe(1000);

    const account = await json('plans', 'set', '--account', accountId, '--plan', 'enterprise', '--per-minute', '3', '--per-day', '500');
    expect(account).toMatchObject({ plan: 'enterprise', limits: { perMinute: 3, perDay: 500 }, customLimits: true });
    // Two requests are already counted in this minute: one more fits, the next is refused.
    const third = await send(platform, secret);
    expect(third.status).toBe(202);
    expect(limitOf(third.headers)).toBe(3);
    expect((await send(platform, secret)).status).toBe(429);
  });

  it('usage shows the account\'s minute and day against its limits, and each key\'s share', async () => {
    platform.clock.advance(60_000);
    const accountId = await newAccount('pro');
    const busy = await newKey(accountId, 'busy');
    const quiet = await newKey(accountId, 'quiet');
    for (let i = 0; i < 3; i++) expect((await send(platform, busy.secret)).status).toBe(202);
    expect((await send(platform, quiet.secret)).status).toBe(202);

    const human = await cli('usage', '--account', accountId);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^plan +pro \(300\/min, 10000\/day, shared by every key of the account\)$/m);
    expect(human.stdout).toMatch(/^this minute +4\/300 \(296 left, resets \S+:00\.000Z\)$/m);
    expect(human.stdout).toMatch(/^today \(UTC\) +4\/10000 \(9996 left, resets \S+T00:00:00\.000Z\)$/m);
    expect(human.stdout).toMatch(/^ID +NAME +KEY +STATUS +MINUTE +DAY +LAST USED +BANNED UNTIL$/m);
    expect(human.stdout).toMatch(new RegExp(`^${busy.keyId} +busy +\\S+ +active +3 +3 +\\S+Z +-$`, 'm'));
    expect(human.stdout).toMatch(new RegExp(`^${quiet.keyId} +quiet +\\S+ +active +1 +1 +\\S+Z +-$`, 'm'));

    const usage = await json<UsageView>('usage', '--account', accountId);
    expect(usage).toMatchObject({
      accountId,
      plan: 'pro',
      limits: { perMinute: 300, perDay: 10000 },
      minute: { used: 4, limit: 300, remaining: 296 },
      day: { used: 4, limit: 10000, remaining: 9996 },
    });
    expect(usage.keys.find((k) => k.keyId === busy.keyId)).toMatchObject({ used: { minute: 3, day: 3 } });
    expect(usage.keys.find((k) => k.keyId === quiet.keyId)).toMatchObject({ used: { minute: 1, day: 1 } });
  });
});

describe('bans', () => {
  it('bans lift lets a banned key through again', async () => {
    platform.clock.advance(60_000);
    const accountId = await newAccount('enterprise', '--per-minute', '1', '--per-day', '1000');
    const { secret, keyId } = await newKey(accountId);
    expect((await send(platform, secret)).status).toBe(202);
    let last;
    for (let i = 0; i < 32; i++) last = await send(platform, secret);
    expect(last?.status).toBe(429);
    expect(last?.body.code).toBe('key_banned');

    const usage = await cli('usage', '--account', accountId);
    expect(usage.stdout).toMatch(new RegExp(`^${keyId} .* 1 +1 +\\S+Z +\\d{4}-\\S+Z$`, 'm'));

    const human = await cli('bans', 'lift', '--account', accountId, '--key', keyId);
    expect(human.code).toBe(0);
    expect(human.stdout).toBe(`Lifted the ban on key ${keyId}.\n`);
    // A container that refused the banned key answers from that memory for up to 5 s.
    platform.clock.advance(5_000);
    // Not banned any more; still over this minute's limit until the next one.
    expect((await send(platform, secret)).body.code).toBe('rate_limited');
    platform.clock.advance(60_000);
    expect((await send(platform, secret)).status).toBe(202);

    expect(await json('bans', 'lift', '--account', accountId, '--key', keyId)).toEqual({ keyId, wasBanned: false });
  });
});

describe('errors', () => {
  it('an unknown account: exit 1 and the platform\'s detail; --json gives an error document', async () => {
    const out = await cli('accounts', 'show', '--account', 'acct_nope');
    expect(out).toEqual({ code: 1, stdout: '', stderr: 'error: No account acct_nope.\n' });

    const doc = await cli('keys', 'list', '--account', 'acct_nope', '--json');
    expect(doc.code).toBe(1);
    expect(JSON.parse(doc.stdout)).toEqual({
      error: { message: 'No account acct_nope.', code: 'account_not_found', status: 404, exitCode: 1 },
    });
  });

  it('an unknown key: exit 1', async () => {
    const out = await cli('keys', 'revoke', '--account', platform.demoAccounts.free.accountId, '--key', 'key_nope');
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(`error: No key key_nope in account ${platform.demoAccounts.free.accountId}.\n`);
  });

  it('a value the platform refuses: exit 1 with its field errors', async () => {
    const out = await cli('accounts', 'create', '--name', '   ', '--plan', 'free');
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^error: name: must be a string of 1 to 100 characters\n/);
  });

  it.each([
    [['keys', 'create', '--account', 'acct_x'], 'error: keys create needs --name'],
    [['accounts', 'create', '--name', 'x', '--plan', 'gold'], 'error: --plan must be one of free, pro, business, enterprise, got "gold"'],
    [['plans', 'set', '--account', 'acct_x', '--plan', 'pro', '--per-minute', '5', '--per-day', '50'], 'error: --per-minute and --per-day are custom limits, for --plan enterprise only'],
    [['plans', 'set', '--account', 'acct_x', '--plan', 'enterprise', '--per-minute', '5'], 'error: --per-minute and --per-day go together'],
    [['accounts', 'create', '--name', 'x', '--plan', 'enterprise', '--per-minute', 'ten', '--per-day', '5'], 'error: --per-minute must be a whole number above 0, got "ten"'],
    [['plans', 'set', '--account', 'acct_x', '--plan', 'enterprise', '--per-minute', '0', '--per-day', '5'], 'error: --per-minute must be a whole number above 0, got "0"'],
    [['keys', 'list', '--acount', 'acct_x'], 'error: unknown flag --acount for keys list'],
    [['keys', 'list', '--account'], 'error: --account needs a value'],
    [['keys', 'list', '--account', 'acct_x', 'extra'], 'error: unexpected argument "extra" for keys list'],
    [['keys', 'rotate', '--account', 'acct_x'], 'error: unknown command "keys rotate"; keys has: create, list, revoke'],
    [['accounts', 'delete'], 'error: unknown command "accounts delete"'],
    [['frobnicate'], 'error: unknown command "frobnicate"'],
    [['keys'], 'error: keys needs a command: create, list, revoke'],
    [['usage', '--account', 'acct_x', '--stack', 'S'], 'error: --url is for the local platform; --stack/--outputs for a deployed stack'],
  ])('usage error %j: exit 2', async (argv, message) => {
    const out = await cli(...argv);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.startsWith(message)).toBe(true);
    expect(out.stderr).not.toMatch(/^\s+at /m);
  });

  it('no command: the help on stderr and exit 2', async () => {
    const out = await cliWith({}, []);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('Usage: npm run platform -- <command> [flags]');
    expect(out.stderr).toContain('error: no command given');
  });

  it('an unreachable control API: exit 1 with the npm start hint', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const out = await cliWith({}, ['usage', '--account', 'acct_x', '--url', url]);
    expect(out).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `error: cannot reach the control API at ${url} (ECONNREFUSED)\n` +
        'hint: is the local platform running? start it with npm start (or pass --url, or --stack/--outputs for a deployed stack)\n',
    });
  });

  it('a URL that is not the control API: exit 1 with a hint', async () => {
    const out = await cliWith({}, ['accounts', 'show', '--account', 'acct_x', '--url', platform.baseUrl]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('hint: is --url the control API?');
  });
});

describe('help and environment', () => {
  it('--help and -h, global and per command, with examples', async () => {
    const global = await cliWith({}, ['--help']);
    expect(global.code).toBe(0);
    for (const command of ['accounts create', 'accounts show', 'keys create', 'keys list', 'keys revoke', 'plans set', 'bans lift', 'usage']) {
      expect(global.stdout).toContain(`  ${command} `);
      const own = await cliWith({}, [...command.split(' '), '-h']);
      expect(own.code).toBe(0);
      expect(own.stdout).toContain(`Usage: npm run platform -- ${command} `);
      expect(own.stdout).toMatch(/Examples:\n {2}npm run platform -- /);
    }
    expect((await cliWith({}, ['help', 'keys'])).stdout).toContain('Usage: npm run platform -- keys <create|list|revoke>');
  });

  it('PLATFORM_CONTROL_URL replaces the default URL', async () => {
    const out = await cliWith({ PLATFORM_CONTROL_URL: platform.controlUrl }, ['accounts', 'show', '--account', platform.demoAccounts.pro.accountId, '--json']);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ plan: 'pro' });
  });
});

describe('bin/platform.ts as a process', () => {
  const spawnCli = (args: string[]) =>
    new Promise<Outcome>((resolve, reject) => {
      const child = spawn('npx', ['tsx', 'bin/platform.ts', ...args], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.once('error', reject);
      child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });

  it('--help exits 0', async () => {
    const out = await spawnCli(['--help']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Usage: npm run platform -- <command> [flags]');
  });

  it('--json output parses as one document', async () => {
    const accountId = platform.demoAccounts.enterprise.accountId;
    const out = await spawnCli(['usage', '--account', accountId, '--json', '--url', platform.controlUrl]);
    expect(out.code, out.stderr).toBe(0);
    const usage = JSON.parse(out.stdout) as { accountId: string; keys: unknown[] };
    expect(usage.accountId).toBe(accountId);
    expect(usage.keys.length).toBeGreaterThan(0);
  });

  it('a refused command exits 1 with one error line and no stack trace', async () => {
    const out = await spawnCli(['accounts', 'show', '--account', 'acct_nope', '--url', platform.controlUrl]);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain('error: No account acct_nope.\n');
    expect(out.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('secrets', () => {
  it('no key secret appears in any output but its keys create', () => {
    expect(secrets.length).toBeGreaterThan(5);
    for (const secret of secrets) {
      const showing = transcript.filter((t) => t.stdout.includes(secret) || t.stderr.includes(secret));
      expect(showing).toHaveLength(1);
      expect(showing[0]?.argv.slice(0, 2)).toEqual(['keys', 'create']);
      expect(showing[0]?.stderr).not.toContain(secret);
    }
  });
});
