import { describe, expect, it } from 'vitest';
import { CliError } from '../../cli/errors.js';
import { ControlApiClient } from '../../cli/control-api-client.js';

function answering(status: number, body: string, contentType = 'application/problem+json') {
  const calls: Array<{ url: string; method: string; body: string }> = [];
  const fetchStub = async (request: Request) => {
    calls.push({ url: request.url, method: request.method, body: await request.text() });
    return new Response(body, { status, headers: { 'Content-Type': contentType } });
  };
  return { calls, client: new ControlApiClient('http://127.0.0.1:3001/', { fetch: fetchStub }) };
}

async function failure(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe('ControlApiClient', () => {
  it('calls the control API routes, with path segments encoded', async () => {
    const { calls, client } = answering(200, '{"keyId":"key_1","wasBanned":true}', 'application/json');
    expect(await client.liftBan('acct/1', 'key 1')).toEqual({ keyId: 'key_1', wasBanned: true });
    expect(calls[0]?.url).toBe('http://127.0.0.1:3001/accounts/acct%2F1/keys/key%201/ban');
    expect(calls[0]?.method).toBe('DELETE');

    await client.setPlan('acct_1', { plan: 'enterprise', limits: { perMinute: 5, perDay: 50 } });
    expect(calls[1]?.url).toBe('http://127.0.0.1:3001/accounts/acct_1/plan');
    expect(calls[1]?.method).toBe('PUT');
    expect(JSON.parse(String(calls[1]?.body))).toEqual({ plan: 'enterprise', limits: { perMinute: 5, perDay: 50 } });
  });

  it('turns a problem document into a CliError with its detail, code and status', async () => {
    const { client } = answering(
      400,
      JSON.stringify({
        type: 'https://example.com/problems/invalid_request',
        title: 'Bad Request',
        status: 400,
        detail: 'limits: perDay must be at least perMinute',
        code: 'invalid_request',
        errors: [{ field: 'limits', message: 'perDay must be at least perMinute' }],
      }),
    );
    const error = await failure(client.createAccount({ name: 'x', plan: 'enterprise', limits: { perMinute: 9, perDay: 1 } }));
    expect(error.message).toBe('limits: perDay must be at least perMinute');
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, exitCode: 1, hint: undefined });
    expect(error.errors).toEqual([{ field: 'limits', message: 'perDay must be at least perMinute' }]);
  });

  it('a server that is not the control API gets a hint', async () => {
    const html = await failure(answering(404, '<html>nope</html>', 'text/html').client.getAccount('acct_1'));
    expect(html.message).toBe('HTTP 404 Not Found');
    expect(html.hint).toContain('is --url the control API?');
    const notJson = await failure(answering(200, 'hello', 'text/plain').client.usage('acct_1'));
    expect(notJson.message).toBe('unexpected answer from http://127.0.0.1:3001: not a JSON document');
  });

  it('an answer that never comes: a timeout error', async () => {
    const open: Request[] = [];
    const hanging = (request: Request) => {
      open.push(request);
      return new Promise<Response>(() => {});
    };
    const client = new ControlApiClient('http://127.0.0.1:3001', { fetch: hanging, timeoutMs: 50 });
    const error = await failure(client.listKeys('acct_1'));
    expect(error.message).toBe('the control API at http://127.0.0.1:3001 did not answer within 0.05 s');
    expect(open.map((request) => request.signal.aborted)).toEqual([true]);
  });
});
