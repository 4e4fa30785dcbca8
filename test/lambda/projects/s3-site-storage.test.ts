import { createHash } from 'node:crypto';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { base64OfHex, S3SiteStorage, SITE_CACHE_CONTROL, UPLOAD_URL_SECONDS } from '../../../lambda/projects/s3-site-storage.js';
import { ManualClock } from '../../support/clock.js';

const s3 = mockClient(S3Client);
const clock = new ManualClock(Date.parse('2026-11-27T12:00:00Z'));
const storage = () =>
  new S3SiteStorage({
    client: new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } }),
    bucket: 'site-bucket',
    clock,
  });
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

beforeEach(() => {
  s3.reset();
});

describe('S3SiteStorage presigned uploads', () => {
  it('signs a PUT to the content key that pins the length and the SHA-256 as signed headers, valid 10 minutes', async () => {
    const hash = sha('<h1>hi</h1>');
    const upload = await storage().presignUpload('prj_1', { sha256: hash, size: 11 });
    const url = new URL(upload.url);
    expect(url.pathname).toBe(`/projects/prj_1/content/${hash}`);
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(['content-length', 'host', 'x-amz-checksum-sha256']);
    expect(url.searchParams.get('X-Amz-Expires')).toBe(String(UPLOAD_URL_SECONDS));
    expect(UPLOAD_URL_SECONDS).toBeLessThanOrEqual(900);
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261127T120000Z');
    // The checksum travels as a header the client must send (S3 compares it with the body), not in the query.
    expect(url.searchParams.has('x-amz-checksum-sha256')).toBe(false);
    expect(upload.headers).toEqual({ 'x-amz-checksum-sha256': Buffer.from(hash, 'hex').toString('base64') });
    expect(upload.expiresAt).toBe('2026-11-27T12:10:00.000Z');
  });

  it('signs another signature for another length or hash (the PUT of a different body does not match)', async () => {
    const hash = sha('a');
    const one = new URL((await storage().presignUpload('prj_1', { sha256: hash, size: 1 })).url).searchParams.get('X-Amz-Signature');
    const longer = new URL((await storage().presignUpload('prj_1', { sha256: hash, size: 2 })).url).searchParams.get('X-Amz-Signature');
    const other = new URL((await storage().presignUpload('prj_1', { sha256: sha('b'), size: 1 })).url);
    expect(longer).not.toBe(one);
    expect(other.searchParams.get('X-Amz-Signature')).not.toBe(one);
  });

  it('encodes the hex digest as S3 wants it (base64 of the 32 bytes)', () => {
    expect(base64OfHex(sha(''))).toBe('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  });
});

describe('S3SiteStorage objects', () => {
  it('lists stored content by hash and size across pages', async () => {
    s3.on(ListObjectsV2Command, { Prefix: 'projects/prj_1/content/' })
      .resolvesOnce({ Contents: [{ Key: 'projects/prj_1/content/aa', Size: 3 }], IsTruncated: true, NextContinuationToken: 't' })
      .resolvesOnce({ Contents: [{ Key: 'projects/prj_1/content/bb', Size: 5 }], IsTruncated: false });
    expect(await storage().storedContent('prj_1')).toEqual(new Map([['aa', 3], ['bb', 5]]));
  });

  it('publishes by copying each content to its path with its Content-Type and the deploy cache policy', async () => {
    s3.on(CopyObjectCommand).resolves({});
    await storage().publish('prj_1', 'dep_1', [
      { path: 'index.html', sha256: 'aa', size: 3, contentType: 'text/html; charset=utf-8' },
      { path: 'data/x.json', sha256: 'aa', size: 3, contentType: 'application/json' },
    ]);
    const inputs = s3.commandCalls(CopyObjectCommand).map((c) => c.args[0].input);
    expect(inputs).toEqual([
      {
        Bucket: 'site-bucket',
        Key: 'projects/prj_1/deploys/dep_1/index.html',
        CopySource: 'site-bucket/projects/prj_1/content/aa',
        MetadataDirective: 'REPLACE',
        ContentType: 'text/html; charset=utf-8',
        CacheControl: SITE_CACHE_CONTROL,
      },
      expect.objectContaining({ Key: 'projects/prj_1/deploys/dep_1/data/x.json', ContentType: 'application/json' }),
    ]);
  });

  it('deletes in batches of 1,000 and fails when S3 reports an object it could not delete', async () => {
    s3.on(DeleteObjectsCommand).resolves({});
    const hashes = Array.from({ length: 2_500 }, (_, i) => `h${i}`);
    await storage().deleteContent('prj_1', hashes);
    const sizes = s3.commandCalls(DeleteObjectsCommand).map((c) => c.args[0].input.Delete?.Objects?.length);
    expect(sizes.sort()).toEqual([1000, 1000, 500]);
    s3.on(DeleteObjectsCommand).resolves({ Errors: [{ Key: 'projects/prj_1/content/h1', Code: 'AccessDenied' }] });
    await expect(storage().deleteContent('prj_1', ['h1'])).rejects.toThrow(/could not be deleted.*AccessDenied/);
  });

  it('lets CloudFront keep a deploy\'s objects for a year but makes browsers revalidate (viewer URLs outlive deploys)', () => {
    expect(SITE_CACHE_CONTROL).toMatch(/s-maxage=31536000/);
    expect(SITE_CACHE_CONTROL).toMatch(/(^|, )max-age=0(,|$)/);
    expect(SITE_CACHE_CONTROL).not.toMatch(/immutable/);
  });
});
