import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SiteStorage } from './ports.js';

/**
 * Cache-Control of every deployed file. A deploy's objects never change (a new deploy gets a new
 * prefix), and the viewer-request function rewrites the URI to `/<deploy prefix>/<path>` before
 * the cache lookup, so CloudFront's cache key includes the prefix: the edge may keep an object for
 * a year (`s-maxage`, within the cache policy's maximum TTL) and never needs an invalidation.
 * Browsers, though, see the stable viewer URL (`/index.html` stays `/index.html` across deploys),
 * so they must revalidate every time (`max-age=0, must-revalidate`); CloudFront answers those
 * revalidations from its cache. `immutable` would pin an old deploy in browsers for a year.
 */
export const SITE_CACHE_CONTROL = 'public, max-age=0, s-maxage=31536000, must-revalidate';

export interface S3SiteStorageOptions {
  /** Keeps the SDK's own retries (standard mode): they cover S3's SlowDown throttling. */
  readonly client: S3Client;
  /** The site bucket (DOMAIN_ENV.siteBucket). */
  readonly bucket: string;
}

/** Deployed files in S3 under `<deploy prefix>/<path>` (the CloudFront origin; docs/contributors/architecture.md, "Custom domains"). */
export class S3SiteStorage implements SiteStorage {
  constructor(private readonly options: S3SiteStorageOptions) {}

  async putFile(key: string, body: Uint8Array, contentType: string): Promise<void> {
    if (key.length === 0 || key.startsWith('/') || key.split('/').some((part) => part === '' || part === '.' || part === '..')) {
      throw new Error(`Invalid site object key: ${JSON.stringify(key)}`);
    }
    await this.options.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        CacheControl: SITE_CACHE_CONTROL,
      }),
    );
  }
}
