import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { deployPrefix } from '../../../lambda/projects/project.js';
import { S3SiteStorage, SITE_CACHE_CONTROL } from '../../../lambda/projects/s3-site-storage.js';

const s3 = mockClient(S3Client);
const storage = () => new S3SiteStorage({ client: new S3Client({ region: 'eu-west-1' }), bucket: 'site-bucket' });

beforeEach(() => {
  s3.reset();
  s3.on(PutObjectCommand).resolves({ ETag: '"abc"' });
});

describe('S3SiteStorage', () => {
  it('puts the file under its deploy prefix with its content type and the deploy cache policy', async () => {
    const body = new TextEncoder().encode('<!doctype html><title>hi</title>');
    const key = `${deployPrefix('prj_1', 'dep_1')}/index.html`;
    await storage().putFile(key, body, 'text/html; charset=utf-8');
    expect(s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input)).toEqual([
      {
        Bucket: 'site-bucket',
        Key: 'projects/prj_1/deploys/dep_1/index.html',
        Body: body,
        ContentType: 'text/html; charset=utf-8',
        CacheControl: 'public, max-age=0, s-maxage=31536000, must-revalidate',
      },
    ]);
  });

  it('lets CloudFront keep a deploy\'s objects for a year but makes browsers revalidate (viewer URLs outlive deploys)', () => {
    expect(SITE_CACHE_CONTROL).toMatch(/s-maxage=31536000/);
    expect(SITE_CACHE_CONTROL).toMatch(/(^|, )max-age=0(,|$)/);
    expect(SITE_CACHE_CONTROL).not.toMatch(/immutable/);
  });

  it('refuses keys that are empty, absolute or contain empty or dot segments, before any call', async () => {
    for (const key of ['', '/projects/p/deploys/d/a.html', 'projects/p/deploys/d/../x', 'projects//a', 'projects/p/./a', 'projects/p/']) {
      await expect(storage().putFile(key, new Uint8Array(), 'text/plain')).rejects.toThrow(/Invalid site object key/);
    }
    expect(s3.calls()).toHaveLength(0);
  });

  it('rethrows S3 errors', async () => {
    const denied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: {} });
    s3.on(PutObjectCommand).rejects(denied);
    await expect(storage().putFile('projects/p/deploys/d/a.css', new Uint8Array([1]), 'text/css')).rejects.toBe(denied);
  });
});
