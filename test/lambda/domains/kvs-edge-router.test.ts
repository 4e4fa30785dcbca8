import {
  CloudFrontKeyValueStoreClient,
  ConflictException,
  DeleteKeyCommand,
  DescribeKeyValueStoreCommand,
  GetKeyCommand,
  PutKeyCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStaleEtag, KVS_WRITE, KvsEdgeRouter } from '../../../lambda/domains/kvs-edge-router.js';

const KVS_ARN = 'arn:aws:cloudfront::123456789012:key-value-store/0b7bd8a3-1f1c-4a8b-9d3e-1234567890ab';
const meta = { $metadata: {} };
const conflict = () => new ConflictException({ message: 'Resource is not in expected state', ...meta });
const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: {} });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the stub's input/output types are not needed here
let kvs: AwsStub<any, any, any>;
let delays: number[];

const COMMANDS = {
  DescribeKeyValueStore: DescribeKeyValueStoreCommand,
  PutKey: PutKeyCommand,
  GetKey: GetKeyCommand,
  DeleteKey: DeleteKeyCommand,
} as const;

/** Every command sent, in order, as [operation, input]. */
function sent(): Array<[string, unknown]> {
  return kvs.calls().map((call) => {
    const command = call.args[0];
    const name = Object.entries(COMMANDS).find(([, type]) => command instanceof type)?.[0] ?? 'unknown';
    return [name, command.input];
  });
}

const router = () =>
  new KvsEdgeRouter({
    client: new CloudFrontKeyValueStoreClient({ region: 'us-east-1', maxAttempts: 1 }),
    kvsArn: KVS_ARN,
    pacing: {
      sleep: async (ms) => {
        delays.push(ms);
      },
      random: () => 0.5,
    },
  });

beforeEach(() => {
  kvs = mockClient(CloudFrontKeyValueStoreClient);
  delays = [];
  kvs.on(DescribeKeyValueStoreCommand).resolves({ ETag: 'etag-1', KvsARN: KVS_ARN, ItemCount: 3, TotalSizeInBytes: 120, Created: new Date(0) });
  kvs.on(PutKeyCommand).resolves({ ETag: 'etag-2', ItemCount: 4, TotalSizeInBytes: 160 });
  kvs.on(DeleteKeyCommand).resolves({ ETag: 'etag-2', ItemCount: 2, TotalSizeInBytes: 80 });
  kvs.on(GetKeyCommand).resolves({ Key: 'gone.example.com', Value: '{"x":1}', ItemCount: 3, TotalSizeInBytes: 120 });
});

afterEach(() => {
  kvs.restore();
});

describe('KvsEdgeRouter: writes', () => {
  it('serve: DescribeKeyValueStore for the ETag, then PutKey of EDGE_VALUE.serve with IfMatch', async () => {
    await router().serve('www.example.com', 'projects/prj_1/deploys/dep_1');
    expect(sent()).toEqual([
      ['DescribeKeyValueStore', { KvsARN: KVS_ARN }],
      ['PutKey', { KvsARN: KVS_ARN, Key: 'www.example.com', Value: '{"s":"projects/prj_1/deploys/dep_1"}', IfMatch: 'etag-1' }],
    ]);
  });

  it('redirect: PutKey of EDGE_VALUE.redirect (target host and status)', async () => {
    await router().redirect('example.com', 'www.example.com', 308);
    expect(sent()[1]).toEqual([
      'PutKey',
      { KvsARN: KVS_ARN, Key: 'example.com', Value: '{"r":"www.example.com","c":308}', IfMatch: 'etag-1' },
    ]);
  });

  it('refuse: PutKey of EDGE_VALUE.removed, so the function answers 404 at once', async () => {
    await router().refuse('old.example.com');
    expect(sent()[1]).toEqual(['PutKey', { KvsARN: KVS_ARN, Key: 'old.example.com', Value: '{"x":1}', IfMatch: 'etag-1' }]);
  });

  it('refuses a redirect status or target EDGE_VALUE does not allow, and a key the function cannot read, before any call', async () => {
    await expect(router().redirect('example.com', 'www.example.com', 303)).rejects.toThrow(/Invalid redirect status: 303/);
    await expect(router().redirect('example.com', 'https://www.example.com/', 301)).rejects.toThrow(/Invalid redirect target host/);
    await expect(router().serve('example.com', '../etc')).rejects.toThrow(/Invalid deploy prefix/);
    await expect(router().refuse('')).rejects.toThrow(/1-512 characters/);
    await expect(router().refuse(`${'a'.repeat(510)}.io`)).rejects.toThrow(/1-512 characters/);
    expect(sent()).toEqual([]);
  });
});

describe('KvsEdgeRouter: forgetRefusal (clean-up after a release)', () => {
  const removed = async () => true;

  it('reads the ETag, then the value, checks the domain, then deletes with that ETag', async () => {
    const order: string[] = [];
    const stillRemoved = async () => {
      order.push(`checked after ${sent().map(([name]) => name).join(',')}`);
      return true;
    };
    expect(await router().forgetRefusal('gone.example.com', stillRemoved)).toBe(true);
    expect(sent()).toEqual([
      ['DescribeKeyValueStore', { KvsARN: KVS_ARN }],
      ['GetKey', { KvsARN: KVS_ARN, Key: 'gone.example.com' }],
      ['DeleteKey', { KvsARN: KVS_ARN, Key: 'gone.example.com', IfMatch: 'etag-1' }],
    ]);
    expect(order).toEqual(['checked after DescribeKeyValueStore,GetKey']);
  });

  it('keeps any value but the refusal (a re-added domain already serving or redirecting)', async () => {
    for (const value of ['{"s":"projects/p/deploys/d"}', '{"r":"www.example.com","c":301}']) {
      kvs.on(GetKeyCommand).resolves({ Key: 'gone.example.com', Value: value });
      expect(await router().forgetRefusal('gone.example.com', removed)).toBe(false);
    }
    expect(sent().map(([name]) => name)).not.toContain('DeleteKey');
  });

  it('keeps the refusal of a domain that is claimed again (its record is not removed)', async () => {
    expect(await router().forgetRefusal('gone.example.com', async () => false)).toBe(false);
    expect(sent().map(([name]) => name)).toEqual(['DescribeKeyValueStore', 'GetKey']);
  });

  it('checks again from a fresh ETag when a write got in between (ConflictException), and keeps what that write put', async () => {
    kvs.on(DescribeKeyValueStoreCommand).resolvesOnce({ ETag: 'etag-1' }).resolves({ ETag: 'etag-5' });
    kvs.on(GetKeyCommand)
      .resolvesOnce({ Key: 'gone.example.com', Value: '{"x":1}' })
      .resolves({ Key: 'gone.example.com', Value: '{"s":"projects/p/deploys/d"}' });
    kvs.on(DeleteKeyCommand).rejects(conflict());
    expect(await router().forgetRefusal('gone.example.com', removed)).toBe(false);
    expect(sent().map(([name]) => name)).toEqual(['DescribeKeyValueStore', 'GetKey', 'DeleteKey', 'DescribeKeyValueStore', 'GetKey']);
  });

  it('counts an absent key as nothing to delete', async () => {
    kvs.on(GetKeyCommand).rejects(new ResourceNotFoundException({ message: 'Key not found', ...meta }));
    expect(await router().forgetRefusal('gone.example.com', removed)).toBe(false);
    kvs.on(GetKeyCommand).resolves({ Key: 'gone.example.com', Value: '{"x":1}' });
    kvs.on(DeleteKeyCommand).rejects(new ResourceNotFoundException({ message: 'Key not found', ...meta }));
    expect(await router().forgetRefusal('gone.example.com', removed)).toBe(false);
  });
});

describe('KvsEdgeRouter: concurrency and throttling', () => {
  it('re-reads the ETag and writes again when another writer moved it (ConflictException)', async () => {
    kvs.on(DescribeKeyValueStoreCommand).resolvesOnce({ ETag: 'etag-1' }).resolves({ ETag: 'etag-7' });
    kvs.on(PutKeyCommand).rejectsOnce(conflict()).resolves({ ETag: 'etag-8' });
    await router().refuse('old.example.com');
    expect(sent()).toEqual([
      ['DescribeKeyValueStore', { KvsARN: KVS_ARN }],
      ['PutKey', { KvsARN: KVS_ARN, Key: 'old.example.com', Value: '{"x":1}', IfMatch: 'etag-1' }],
      ['DescribeKeyValueStore', { KvsARN: KVS_ARN }],
      ['PutKey', { KvsARN: KVS_ARN, Key: 'old.example.com', Value: '{"x":1}', IfMatch: 'etag-7' }],
    ]);
    expect(delays).toEqual([Math.round(0.5 * KVS_WRITE.baseMs)]);
  });

  it('gives up after KVS_WRITE.maxAttempts conflicts and rethrows the last one', async () => {
    kvs.on(PutKeyCommand).rejects(conflict());
    await expect(router().serve('www.example.com', 'projects/p/deploys/d')).rejects.toBeInstanceOf(ConflictException);
    const names = sent().map(([name]) => name);
    expect(names.filter((n) => n === 'PutKey')).toHaveLength(KVS_WRITE.maxAttempts);
    expect(names.filter((n) => n === 'DescribeKeyValueStore')).toHaveLength(KVS_WRITE.maxAttempts);
    // Jittered exponential steps, capped: 50, 100, 200, 400, 800 ms with random() = 0.5.
    expect(delays).toEqual([50, 100, 200, 400, 800]);
  });

  it('does not retry other errors', async () => {
    const denied = Object.assign(new Error('denied'), { name: 'AccessDeniedException', $metadata: {} });
    kvs.on(PutKeyCommand).rejects(denied);
    await expect(router().refuse('x.example.com')).rejects.toBe(denied);
    expect(sent().map(([name]) => name)).toEqual(['DescribeKeyValueStore', 'PutKey']);
    expect(delays).toEqual([]);
  });

  it('leaves throttling to the SDK client\'s retries: a throttle that outlasts them is rethrown, no ETag re-read', async () => {
    kvs.on(PutKeyCommand).rejects(throttled());
    await expect(router().serve('www.example.com', 'projects/p/deploys/d')).rejects.toMatchObject({ name: 'ThrottlingException' });
    expect(sent().map(([name]) => name)).toEqual(['DescribeKeyValueStore', 'PutKey']);
    expect(delays).toEqual([]);
  });

  it('recognises a stale ETag as ConflictException, PreconditionFailed or HTTP 412', () => {
    expect(isStaleEtag(conflict())).toBe(true);
    expect(isStaleEtag({ name: 'PreconditionFailed' })).toBe(true);
    expect(isStaleEtag({ name: 'Unknown', $metadata: { httpStatusCode: 412 } })).toBe(true);
    expect(isStaleEtag({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } })).toBe(false);
    expect(isStaleEtag(undefined)).toBe(false);
  });
});

describe('KvsEdgeRouter: signing', () => {
  it('signs KeyValueStore requests with SigV4A (the module registers @aws-sdk/signature-v4a)', async () => {
    kvs.restore();
    const seen: Array<{ host: string; authorization?: string; regionSet?: string }> = [];
    const client = new CloudFrontKeyValueStoreClient({
      region: 'eu-west-1',
      maxAttempts: 1,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      requestHandler: {
        handle: async (request: { hostname: string; headers: Record<string, string> }) => {
          seen.push({ host: request.hostname, authorization: request.headers.authorization, regionSet: request.headers['x-amz-region-set'] });
          throw new Error('stop before the network');
        },
      },
    });
    const live = new KvsEdgeRouter({ client, kvsArn: KVS_ARN, pacing: { sleep: async () => {}, random: () => 0 } });
    await expect(live.refuse('x.example.com')).rejects.toThrow('stop before the network');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.host).toBe('123456789012.cloudfront-kvs.global.api.aws');
    expect(seen[0]?.authorization).toMatch(/^AWS4-ECDSA-P256-SHA256 Credential=AKIDEXAMPLE\//);
    expect(seen[0]?.regionSet).toBe('*');
  });
});
