import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { call, freshKey, startTestPlatform, type TestPlatform } from '../support/platform.js';

// `npm run platform -- messages send-batch FILE.jsonl` in process, against the local platform's
// Messages API over real HTTP, with the key in PLATFORM_API_KEY.

let platform: TestPlatform;
const dir = mkdtempSync(join(tmpdir(), 'messages-cli-'));
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (env: Record<string, string | undefined>, ...argv: string[]) => runCli(argv, env);

/** A loopback port nothing listens on (one the system just gave out and took back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let files = 0;
function jsonl(lines: readonly string[]): string {
  const file = join(dir, `messages-${files++}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
const messageLines = (n: number, prefix = 'hello') => Array.from({ length: n }, (_, i) => JSON.stringify({ message: `${prefix} ${i + 1}` }));

describe('messages send-batch', () => {
  it('sends the file in batches of 100 and prints each batch\'s accepted count and ids; every id is queued and readable', async () => {
    // Enterprise in the test config: 150 a minute, so 150 messages fit in one minute.
    const key = await freshKey(platform, 'enterprise', 'cli batch');
    const lines = messageLines(150);
    lines.splice(40, 0, '   '); // a blank line is skipped: line numbers still name the file's lines
    const out = await cli({ PLATFORM_API_KEY: key }, 'messages', 'send-batch', jsonl(lines), '--api-url', platform.baseUrl);

    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe('');
    const ids = [...out.stdout.matchAll(/^ {2}(msg_[0-9A-Z]{26})$/gm)].map((m) => m[1] as string);
    expect(ids).toHaveLength(150);
    expect(new Set(ids).size).toBe(150);
    expect(out.stdout).toContain('batch 1 (lines 1–101): 100 accepted\n');
    expect(out.stdout).toContain('batch 2 (lines 102–151): 50 accepted\n');
    expect(out.stdout.endsWith('150 messages accepted in 2 batches.\n')).toBe(true);
    expect(out.stdout).not.toContain(key);

    const first = await call(platform, `/messages/${ids[0]}`, { key });
    expect([first.status, first.body.message]).toEqual([200, 'hello 1']);
    const last = await call(platform, `/messages/${ids[149]}`, { key });
    expect([last.status, last.body.message]).toEqual([200, 'hello 150']);
  });

  it('--json prints one document with every batch', async () => {
    const key = await freshKey(platform, 'pro', 'cli batch json');
    const out = await cli({ PLATFORM_API_KEY: key }, 'messages', 'send-batch', jsonl(messageLines(3)), '--api-url', platform.baseUrl, '--json');
    expect(out.code, out.stderr).toBe(0);
    type Batch = { batch: number; lines: unknown; accepted: number; ids: string[] };
    const document = JSON.parse(out.stdout) as { accepted: number; batches: Batch[] };
    expect(document.accepted).toBe(3);
    expect(document.batches.map(({ batch, lines, accepted }) => ({ batch, lines, accepted }))).toEqual([
      { batch: 1, lines: { from: 1, to: 3 }, accepted: 3 },
    ]);
    expect(document.batches[0]?.ids).toHaveLength(3);
  });

  it('stops at the first answer other than 202, prints the problem\'s title and detail, and exits 1', async () => {
    const key = await freshKey(platform, 'enterprise', 'cli batch refused');
    const out = await cli({ PLATFORM_API_KEY: key }, 'messages', 'send-batch', jsonl(messageLines(250)), '--api-url', platform.baseUrl);

    expect(out.code).toBe(1);
    expect(out.stdout).toContain('batch 1 (lines 1–100): 100 accepted\n');
    expect(out.stdout).not.toContain('batch 2');
    expect(out.stdout.endsWith('100 messages accepted in 1 batch.\n')).toBe(true);
    expect(out.stderr).toMatch(
      /^error: batch 2 \(lines 101–200\) answered 429 Too Many Requests: This batch of 100 messages needs 100 of your account's budget for this minute, and 50 remain/,
    );
    expect(out.stderr).toMatch(/\nhint: retry after \d+ s; the batches above were accepted\n$/);
    // Batch 3 was never sent: only batch 1's 100 counted.
    const usage = await call(platform, '/messages', { key, body: { message: 'one more' } });
    expect(usage.headers.get('x-ratelimit-remaining')).toBe('49');
  });

  it('shows a 400\'s problem, naming the bad item, and exits 1 with --json still one document', async () => {
    const key = await freshKey(platform, 'pro', 'cli batch bad');
    const file = jsonl([JSON.stringify({ message: 'fine' }), JSON.stringify({ message: '' })]);
    const out = await cli({ PLATFORM_API_KEY: key }, 'messages', 'send-batch', file, '--api-url', platform.baseUrl, '--json');
    expect(out.code).toBe(1);
    const document = JSON.parse(out.stdout) as { accepted: number; refused: Record<string, unknown> };
    expect(document.accepted).toBe(0);
    expect(document.refused).toMatchObject({ batch: 1, lines: { from: 1, to: 2 }, status: 400, title: 'Bad Request' });
    expect(String(document.refused.detail)).toContain('messages[1].message');
    expect(out.stderr).toMatch(/^error: batch 1 \(lines 1–2\) answered 400 Bad Request: /);
  });

  it('refuses, before sending anything (exit 2): no key in the environment, a line that is not an object, --stack', async () => {
    const file = jsonl(messageLines(2));
    const noKey = await cli({}, 'messages', 'send-batch', file, '--api-url', platform.baseUrl);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('error: messages send-batch needs an API key in $PLATFORM_API_KEY\n');

    const key = await freshKey(platform, 'pro', 'cli batch usage');
    const notJson = await cli({ PLATFORM_API_KEY: key }, 'messages', 'send-batch', jsonl(['{"message": "a"}', 'oops']), '--api-url', platform.baseUrl);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/line 2 is not JSON\n/);
    const notObject = await cli({ PLATFORM_API_KEY: key }, 'messages', 'send-batch', jsonl(['"a"']), '--api-url', platform.baseUrl);
    expect(notObject.code).toBe(2);
    expect(notObject.stderr).toMatch(/line 1 is not a JSON object\n/);

    const stack = await cli({ PLATFORM_API_KEY: key }, 'messages', 'send-batch', file, '--stack', 'MessagesPlatform-Api');
    expect(stack.code).toBe(2);
    expect(stack.stderr).toContain('give its URL with --api-url');

    // Nothing above reached the API: the key's budget is whole.
    const probe = await call(platform, '/messages', { key, body: { message: 'probe' } });
    expect(probe.headers.get('x-ratelimit-remaining')).toBe('299');
  });

  it('fails with a hint when the API cannot be reached (exit 1), never printing the key', async () => {
    const key = 'sk_live_000000000000000000000000000000000000';
    const port = await closedPort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const out = await cli({ PLATFORM_API_KEY: key }, 'messages', 'send-batch', jsonl(messageLines(1)), '--api-url', apiUrl);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      `error: cannot reach the Messages API at ${apiUrl} (ECONNREFUSED)\n` +
      'hint: is the local platform running? start it with npm start (or pass --api-url)\n',
    );
    expect(out.stdout + out.stderr).not.toContain(key);
  });
});
