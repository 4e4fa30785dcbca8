import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { chunksOf, inParallel } from '../shared/backoff.js';
import type { Clock } from '../shared/clock.js';
import type { ManifestFile } from './deploy-manifest.js';
import type { UploadInstruction } from '../../contracts/deploys.js';
import type { SiteStorage } from './ports.js';
import { contentKey, contentPrefix, deployPrefix, manifestKey, projectPrefix } from './project.js';

/** The edge caches by deploy prefix for a year; browsers revalidate the stable URLs every time. */
export const SITE_CACHE_CONTROL = 'public, max-age=0, s-maxage=31536000, must-revalidate';

/** Long enough for a 25 MB file on a slow link. */
export const UPLOAD_URL_SECONDS = 600;

/** Copies and deletes in flight at once. */
const CONCURRENCY = 16;

export interface S3SiteStorageOptions {
  /** With the SDK's standard retries: they cover S3's SlowDown. */
  readonly client: S3Client;
  readonly bucket: string;
  readonly clock: Clock;
}

/** S3 wants the checksum as base64 of the digest; manifests carry it as hex. */
export const base64OfHex = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

/** The site bucket: content-addressed uploads, published deploys and their manifests (docs/projects.md). */
export class S3SiteStorage implements SiteStorage {
  constructor(private readonly options: S3SiteStorageOptions) {}

  private async keysUnder(prefix: string): Promise<{ key: string; size: number }[]> {
    const keys: { key: string; size: number }[] = [];
    const { client, bucket } = this.options;
    const pages = paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix });
    for await (const page of pages) {
      for (const object of page.Contents ?? []) if (object.Key) keys.push({ key: object.Key, size: object.Size ?? 0 });
    }
    return keys;
  }

  async storedContent(projectId: string): Promise<Map<string, number>> {
    const prefix = contentPrefix(projectId);
    return new Map((await this.keysUnder(prefix)).map(({ key, size }) => [key.slice(prefix.length), size]));
  }

  // Content-Length and the checksum are signed as headers (unhoistableHeaders, aws-sdk-js-v3 #3906).
  async presignUpload(projectId: string, file: Pick<ManifestFile, 'sha256' | 'size'>): Promise<UploadInstruction> {
    const checksum = base64OfHex(file.sha256);
    const command = new PutObjectCommand({
      Bucket: this.options.bucket,
      Key: contentKey(projectId, file.sha256),
      ContentLength: file.size,
      ChecksumSHA256: checksum,
    });
    const url = await getSignedUrl(this.options.client, command, {
      expiresIn: UPLOAD_URL_SECONDS,
      signingDate: new Date(this.options.clock.now()),
      signableHeaders: new Set(['content-length']),
      unhoistableHeaders: new Set(['x-amz-checksum-sha256']),
    });
    return {
      sha256: file.sha256,
      url,
      method: 'PUT',
      headers: { 'x-amz-checksum-sha256': checksum },
      expiresAt: new Date(this.options.clock.now() + UPLOAD_URL_SECONDS * 1000).toISOString(),
    };
  }

  async putManifest(projectId: string, deployId: string, files: readonly ManifestFile[]): Promise<void> {
    const Key = manifestKey(projectId, deployId);
    const body = { Body: JSON.stringify(files), ContentType: 'application/json' };
    await this.options.client.send(new PutObjectCommand({ Bucket: this.options.bucket, Key, ...body }));
  }

  async getManifest(projectId: string, deployId: string): Promise<ManifestFile[] | undefined> {
    try {
      const key = manifestKey(projectId, deployId);
      const object = await this.options.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return JSON.parse((await object.Body?.transformToString()) ?? '[]') as ManifestFile[];
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async publish(projectId: string, deployId: string, files: readonly ManifestFile[]): Promise<void> {
    const prefix = deployPrefix(projectId, deployId);
    await inParallel(files, CONCURRENCY, (file) =>
      this.options.client.send(
        new CopyObjectCommand({
          Bucket: this.options.bucket,
          Key: `${prefix}/${file.path}`,
          CopySource: `${this.options.bucket}/${contentKey(projectId, file.sha256)}`,
          MetadataDirective: 'REPLACE',
          ContentType: file.contentType,
          CacheControl: SITE_CACHE_CONTROL,
        }),
      ),
    );
  }

  private async deleteKeys(keys: readonly string[]): Promise<void> {
    await inParallel(chunksOf(keys, 1000), CONCURRENCY, async (batch) => {
      const Delete = { Objects: batch.map((Key) => ({ Key })), Quiet: true };
      const result = await this.options.client.send(new DeleteObjectsCommand({ Bucket: this.options.bucket, Delete }));
      const failed = result.Errors ?? [];
      if (failed.length > 0) throw new Error(`${failed.length} objects could not be deleted (first: ${failed[0]?.Key} ${failed[0]?.Code})`);
    });
  }

  async deleteDeploy(projectId: string, deployId: string): Promise<void> {
    const published = await this.keysUnder(`${deployPrefix(projectId, deployId)}/`);
    await this.deleteKeys([...published.map((o) => o.key), manifestKey(projectId, deployId)]);
  }

  async deleteContent(projectId: string, hashes: readonly string[]): Promise<void> {
    await this.deleteKeys(hashes.map((hash) => contentKey(projectId, hash)));
  }

  async deleteProject(projectId: string): Promise<void> {
    await this.deleteKeys((await this.keysUnder(projectPrefix(projectId))).map((o) => o.key));
  }
}
