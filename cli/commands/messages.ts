import { readFile } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import { type Command, httpUrl, str } from '../command.js';
import { CliError, parseJson, usageError } from '../errors.js';
import { clean } from '../format.js';

/** The local platform's Messages API (npm start's default --port). */
const DEFAULT_API_URL = 'http://127.0.0.1:3000';
/** Never a flag, so the key stays out of shell history. */
const API_KEY_ENV = 'PLATFORM_API_KEY';
/** POST /messages/batch takes at most this many messages (openapi/openapi.yaml). */
const MAX_BATCH = 100;

/** One line of the file: its number (from 1) and the object on it. */
type Line = { number: number; item: Record<string, unknown> };
type Lines = { from: number; to: number };
type AcceptedBatch = { batch: number; lines: Lines; accepted: number; ids: string[] };
/** The answer that stopped the run (anything but 202), as the API's problem document tells it. */
type RefusedBatch = ReturnType<typeof problemOf> & { batch: number; lines: Lines };

/** `messages send-batch FILE.jsonl`: a smoke test of the Messages API with a real key. */
export const MESSAGE_COMMANDS: readonly Command[] = [
  {
    words: ['messages', 'send-batch'],
    summary: `Send the messages of a JSON Lines file to POST /messages/batch, ${MAX_BATCH} per request, with the key in $${API_KEY_ENV}`,
    args: [['FILE.jsonl', 'one JSON object per line, {"message": "…"}; blank lines are skipped']],
    flags: [['--api-url URL', `the Messages API (default $PLATFORM_API_URL or ${DEFAULT_API_URL}, the local platform's)`]],
    examples: [
      `messages send-batch messages.jsonl      # with ${API_KEY_ENV}=sk_live_… in the environment`,
      'messages send-batch messages.jsonl --api-url https://abc123.execute-api.eu-west-1.amazonaws.com/v1 --json',
    ],
    messagesApi: true,
    async run(ctx, values, args) {
      const key = ctx.io.env[API_KEY_ENV];
      if (!key) {
        throw usageError(
          `messages send-batch needs an API key in $${API_KEY_ENV}`,
          `export ${API_KEY_ENV}=sk_live_… first (npm start prints one per plan); a flag would leave it in your shell history`,
        );
      }
      const endpoint = batchEndpoint(values['api-url'] === undefined ? undefined : str(values, 'api-url'), ctx.io.env);
      const lines = await readLines(args[0] as string);

      const accepted: AcceptedBatch[] = [];
      let refused: RefusedBatch | undefined;
      for (let start = 0, batch = 1; start < lines.length; start += MAX_BATCH, batch++) {
        const chunk = lines.slice(start, start + MAX_BATCH);
        const range = { from: (chunk[0] as Line).number, to: (chunk[chunk.length - 1] as Line).number };
        const answer = await post(endpoint, key, chunk.map((l) => l.item));
        if (answer.status !== 202) {
          refused = { batch, lines: range, ...problemOf(answer) };
          break;
        }
        const ids = ((answer.body as { data?: Array<{ id?: unknown }> }).data ?? []).map((m) => String(m.id));
        accepted.push({ batch, lines: range, accepted: ids.length, ids });
      }

      const total = accepted.reduce((n, b) => n + b.accepted, 0);
      ctx.output(
        { accepted: total, batches: accepted, ...(refused ? { refused } : {}) },
        accepted.map(batchText).join('') + `${total} message${total === 1 ? '' : 's'} accepted in ${accepted.length} batch${accepted.length === 1 ? '' : 'es'}.\n`,
      );
      if (refused) {
        const detail = refused.detail ? `: ${refused.detail}` : '';
        ctx.fail(
          `batch ${refused.batch} (lines ${refused.lines.from}–${refused.lines.to}) answered ${refused.status} ${refused.title}${detail}`,
          refused.retryAfter ? `retry after ${refused.retryAfter} s; the batches above were accepted` : undefined,
        );
      }
    },
  },
];

/** `<api>/messages/batch`, from --api-url, $PLATFORM_API_URL or the local platform's default. */
function batchEndpoint(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): URL {
  const base = flag ?? (env.PLATFORM_API_URL || DEFAULT_API_URL);
  const url = httpUrl(base, flag !== undefined ? '--api-url' : 'PLATFORM_API_URL');
  // A stage path (https://…/v1) is kept: the batch route is below it.
  return new URL('messages/batch', url.href.endsWith('/') ? url.href : `${url.href}/`);
}

/** The file's objects, one per non-blank line; anything else is a usage error naming the line, before anything is sent. */
async function readLines(file: string): Promise<Line[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${clean(file)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const lines: Line[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    const item = parseJson(raw, () =>
      usageError(`${clean(file)} line ${i + 1} is not JSON`, 'each line holds one object, {"message": "…"}'));
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw usageError(`${clean(file)} line ${i + 1} is not a JSON object`, 'each line holds one object, {"message": "…"}');
    }
    lines.push({ number: i + 1, item: item as Record<string, unknown> });
  });
  if (lines.length === 0) throw usageError(`${clean(file)} has no messages`);
  return lines;
}

async function post(endpoint: URL, key: string, messages: readonly Record<string, unknown>[]) {
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ messages }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const { cause } = error as { cause?: { code?: string; message?: string } };
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new CliError(`cannot reach the Messages API at ${endpoint.origin} (${clean(reason)})`, {
      code: 'network',
      hint: 'is the local platform running? start it with npm start (or pass --api-url)',
      cause: error,
    });
  }
  const body: unknown = await response.json().catch(() => undefined);
  return { status: response.status, body, retryAfter: response.headers.get('retry-after') ?? undefined };
}

function problemOf(answer: Awaited<ReturnType<typeof post>>) {
  const problem = (answer.body ?? {}) as { title?: unknown; detail?: unknown; code?: unknown };
  return {
    status: answer.status,
    title: typeof problem.title === 'string' ? clean(problem.title) : (STATUS_CODES[answer.status] ?? 'Unknown'),
    ...(typeof problem.detail === 'string' ? { detail: clean(problem.detail) } : {}),
    ...(typeof problem.code === 'string' ? { code: problem.code } : {}),
    ...(answer.retryAfter !== undefined ? { retryAfter: answer.retryAfter } : {}),
  };
}

const batchText = (b: AcceptedBatch) =>
  `batch ${b.batch} (lines ${b.lines.from}–${b.lines.to}): ${b.accepted} accepted\n${b.ids.map((id) => `  ${id}\n`).join('')}`;
