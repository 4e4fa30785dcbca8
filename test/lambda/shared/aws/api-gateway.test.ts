import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiGatewayClient, GetApiKeyCommand } from '../../../../lambda/shared/aws/api-gateway.js';

let server: Server;
let client: ApiGatewayClient;
const requests: IncomingMessage[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req);
    if (req.url?.startsWith('/apikeys/gk-1')) {
      res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'r1' });
      res.end(JSON.stringify({ id: 'gk-1', value: 'v'.repeat(40), enabled: true, createdDate: 1_795_000_000, stageKeys: [] }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'NotFoundException' });
      res.end(JSON.stringify({ message: 'Invalid API Key identifier specified' }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new ApiGatewayClient({
    region: 'eu-west-1',
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
  });
});
afterAll(async () => {
  client.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('ApiGatewayClient GetApiKey', () => {
  it('GETs /apikeys/{id}?includeValue=true signed for apigateway, with the SDK\'s output shape', async () => {
    const key = await client.send(new GetApiKeyCommand({ apiKey: 'gk-1', includeValue: true }));
    expect(key).toMatchObject({ id: 'gk-1', value: 'v'.repeat(40), enabled: true, stageKeys: [] });
    expect(key.createdDate).toEqual(new Date(1_795_000_000_000));
    expect(key.$metadata).toMatchObject({ httpStatusCode: 200, requestId: 'r1', attempts: 1 });
    const request = requests.at(-1);
    expect(request?.method).toBe('GET');
    expect(request?.url).toBe('/apikeys/gk-1?includeValue=true');
    expect(request?.headers.authorization).toMatch(/Credential=AKIDTEST\/\d{8}\/eu-west-1\/apigateway\/aws4_request, SignedHeaders=accept;host;x-amz-date,/);
  });

  it('encodes the key id as a path segment and names a missing key NotFoundException', async () => {
    const error = await client.send(new GetApiKeyCommand({ apiKey: 'a/b c', includeValue: true })).catch((e: unknown) => e);
    expect(requests.at(-1)?.url).toBe('/apikeys/a%2Fb%20c?includeValue=true');
    expect(error).toMatchObject({
      name: 'NotFoundException',
      message: 'Invalid API Key identifier specified',
      $metadata: { httpStatusCode: 404, attempts: 1 },
    });
  });
});
