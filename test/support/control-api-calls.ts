import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { expect } from 'vitest';
import { assertResponseMatchesSpec, type ObservedResponse, readResponse, type ResponseValidator } from './openapi.js';
import { eventually, type TestPlatform } from './platform.js';

// The calls of test/integration/control-api.test.ts: every request to the control API, each answer
// checked against openapi/control-api.yaml, recording which documented operations were answered and
// which problem codes were seen (the file's last tests check that every one was).

export type Body = Record<string, unknown>;
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Body;
}

/** What the calls need once the file's platform started: read at each call. */
export interface ControlApiContext {
  readonly platform: TestPlatform;
  readonly validator: ResponseValidator;
}

/** The document's path templates, most literal segments first, each with the pattern of the paths it matches. */
function pathTemplates(validator: ResponseValidator) {
  return Object.keys(validator.document.paths)
    .map((template) => ({
      template,
      regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      literals: template.split('/').filter((s) => s !== '' && !s.startsWith('{')).length,
    }))
    .sort((a, b) => b.literals - a.literals);
}

export const manifest = (html: string) => {
  const body = new TextEncoder().encode(html);
  return [{ path: 'index.html', sha256: createHash('sha256').update(body).digest('hex'), size: body.byteLength }];
};

export const expectProblem = (answer: Answer, status: number, code: string) =>
  expect({ status: answer.status, code: answer.body.code }, JSON.stringify(answer.body)).toEqual({ status, code });

export function controlApiCalls(context: () => ControlApiContext) {
  /** `METHOD /template` of every documented operation answered, and every problem code seen. */
  const exercised = new Set<string>();
  const codes = new Set<string>();
  let templates: ReturnType<typeof pathTemplates> | undefined;

  function record(observed: ObservedResponse): void {
    const { validator } = context();
    assertResponseMatchesSpec(observed, validator);
    templates ??= pathTemplates(validator);
    const path = new URL(observed.path, 'http://localhost').pathname;
    const match = templates.find((t) => t.regex.test(path));
    const operation = match ? validator.document.paths[match.template]?.[observed.method.toLowerCase()] : undefined;
    if (match && operation) exercised.add(`${observed.method.toUpperCase()} ${match.template}`);
    const code = (observed.body as Body | undefined)?.code;
    if (observed.status >= 400 && typeof code === 'string') codes.add(code);
  }

  /** One request to the control API; the answer must match the document. */
  async function cp(
    method: string,
    path: string,
    body?: unknown,
    options: { raw?: string; contentType?: string } = {},
  ): Promise<Answer> {
    const payload = options.raw ?? (body === undefined ? undefined : JSON.stringify(body));
    const headers: Record<string, string> = {};
    if (payload !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
    const res = await fetch(`${context().platform.controlUrl}${path}`, { method, headers, ...(payload === undefined ? {} : { body: payload }) });
    const observed = await readResponse(method, path, res);
    record(observed);
    if (res.ok) expect(res.headers.get('cache-control')).toBe('no-store');
    const parsed = typeof observed.body === 'object' && observed.body !== null ? (observed.body as Body) : {};
    return { status: observed.status, headers: res.headers, body: parsed };
  }

  /** A deploy of one index.html through the documented calls (manifest, presigned PUT, finalize), each answer checked. */
  async function deployPage(projectPath: string, html: string): Promise<Body> {
    const body = new TextEncoder().encode(html);
    const entry = { path: 'index.html', sha256: createHash('sha256').update(body).digest('hex'), size: body.byteLength };
    const started = await cp('POST', `${projectPath}/deploys`, { files: [entry] });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    type Upload = { url: string; headers: Record<string, string> };
    const { deploy, uploads } = started.body as { deploy: Body; uploads: Upload[] };
    for (const upload of uploads) await fetch(upload.url, { method: 'PUT', headers: upload.headers, body });
    const finalized = await cp('POST', `${projectPath}/deploys/${deploy.deployId as string}/finalize`);
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    return finalized.body;
  }

  async function domainIn(path: string, states: string[]): Promise<Body> {
    return eventually(async () => {
      const current = await cp('GET', path);
      return states.includes(current.body.state as string) ? current.body : undefined;
    }, 10_000, 25);
  }

  /** A body over the 20 MiB limit, on a connection of its own (the server closes it after the 413). */
  function oversized(path: string): Promise<ObservedResponse> {
    const payload = Buffer.alloc(20 * 1024 * 1024 + 1, 0x20);
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = request(
        `${context().platform.controlUrl}${path}`,
        { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length } },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
            resolve({ method: 'POST', path, status: res.statusCode ?? 0, headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          });
          res.on('error', reject);
        },
      );
      // The server stops reading at the limit; the rest of the upload may fail to be written.
      req.on('error', (error) => {
        if (!answered) reject(error);
      });
      req.end(payload);
    });
  }

  return { exercised, codes, record, cp, deployPage, domainIn, oversized };
}
