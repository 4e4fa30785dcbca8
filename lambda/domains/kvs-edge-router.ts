// The KeyValueStore data-plane API is signed with SigV4A: without this signer every call fails.
import '@aws-sdk/signature-v4a';
import {
  type CloudFrontKeyValueStoreClient,
  DeleteKeyCommand,
  DescribeKeyValueStoreCommand,
  GetKeyCommand,
  PutKeyCommand,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import type { RedirectStatus } from '../../contracts/domains.js';
import { EDGE_VALUE, KVS_LIMITS } from '../../edge/cloudfront-function.js';
import { type BackoffPolicy, type Pacing, REAL_PACING, withBackoff } from '../shared/backoff.js';
import type { EdgeCleanup, EdgeRouter } from './ports.js';

/** Retry policy of a write whose ETag moved between DescribeKeyValueStore and PutKey/DeleteKey. */
export const KVS_WRITE: BackoffPolicy = { maxAttempts: 6, baseMs: 100, capMs: 2_000 };

const STALE_ETAG = new Set(['ConflictException', 'PreconditionFailed', 'PreconditionFailedException']);

/** A write whose `IfMatch` lost to another writer: ConflictException (409), or 412 from some endpoints. */
export function isStaleEtag(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return STALE_ETAG.has(e?.name ?? '') || e?.$metadata?.httpStatusCode === 412;
}

export interface KvsEdgeRouterOptions {
  /** With the management-plane retries: throttles are the SDK's to retry. */
  readonly client: CloudFrontKeyValueStoreClient;
  readonly kvsArn: string;
  readonly pacing?: Pacing;
}

/** The edge port on the KeyValueStore: each write reads the ETag, then writes with `IfMatch`, retried if stale. */
export class KvsEdgeRouter implements EdgeRouter, EdgeCleanup {
  constructor(private readonly options: KvsEdgeRouterOptions) {}

  async serve(host: string, prefix: string): Promise<void> {
    await this.put(host, EDGE_VALUE.serve(prefix));
  }

  async redirect(host: string, to: string, status: number): Promise<void> {
    await this.put(host, EDGE_VALUE.redirect(to, status as RedirectStatus));
  }

  async refuse(host: string): Promise<void> {
    await this.put(host, EDGE_VALUE.removed());
  }

  /** Deletes the refusal only if it is still one and `stillRemoved()`; a put in between fails the delete, which retries. */
  async forgetRefusal(host: string, stillRemoved: () => Promise<boolean>): Promise<boolean> {
    const key = checkedKey(host);
    const { kvsArn: KvsARN } = this.options;
    let deleted = false;
    await this.write(async (etag) => {
      deleted = false;
      const value = await this.valueOf(key);
      if (value !== EDGE_VALUE.removed() || !(await stillRemoved())) return;
      try {
        await this.options.client.send(new DeleteKeyCommand({ KvsARN, Key: key, IfMatch: etag }));
        deleted = true;
      } catch (error) {
        if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
      }
    });
    return deleted;
  }

  private async valueOf(key: string): Promise<string | undefined> {
    try {
      const out = await this.options.client.send(new GetKeyCommand({ KvsARN: this.options.kvsArn, Key: key }));
      return out.Value;
    } catch (error) {
      if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
      throw error;
    }
  }

  private async put(host: string, value: string): Promise<void> {
    const key = checkedKey(host);
    await this.write(async (etag) => {
      const { kvsArn: KvsARN } = this.options;
      await this.options.client.send(new PutKeyCommand({ KvsARN, Key: key, Value: value, IfMatch: etag }));
    });
  }

  private async write(send: (etag: string) => Promise<void>): Promise<void> {
    await withBackoff(
      async () => {
        const store = await this.options.client.send(new DescribeKeyValueStoreCommand({ KvsARN: this.options.kvsArn }));
        if (!store.ETag) throw new Error(`DescribeKeyValueStore ${this.options.kvsArn} returned no ETag`);
        await send(store.ETag);
      },
      KVS_WRITE,
      isStaleEtag,
      this.options.pacing ?? REAL_PACING,
    );
  }
}

function checkedKey(host: string): string {
  if (host.length === 0 || host.length > KVS_LIMITS.keyChars) {
    throw new Error(`KeyValueStore key must be 1-${KVS_LIMITS.keyChars} characters: ${JSON.stringify(host)}`);
  }
  return host;
}
