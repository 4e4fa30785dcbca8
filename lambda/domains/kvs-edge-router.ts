// Registers the JavaScript SigV4A signer: the KeyValueStore data-plane API is signed with SigV4A
// (signing region "*"); without this import every call fails with "Neither CRT nor JS SigV4a
// implementation is available".
import '@aws-sdk/signature-v4a';
import {
  type CloudFrontKeyValueStoreClient,
  DeleteKeyCommand,
  DescribeKeyValueStoreCommand,
  GetKeyCommand,
  PutKeyCommand,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import { EDGE_VALUE, KVS_LIMITS, type RedirectStatus } from '../../edge/cloudfront-function.js';
import { type BackoffPolicy, type Pacing, REAL_PACING, withBackoff } from '../shared/backoff.js';
import type { EdgeCleanup, EdgeRouter } from './ports.js';

/** Retry policy of a write whose ETag moved between DescribeKeyValueStore and PutKey/DeleteKey. */
export const KVS_WRITE: BackoffPolicy = {
  /** Attempts in all (each one re-reads the ETag); then the last conflict is rethrown. */
  maxAttempts: 6,
  baseMs: 100,
  capMs: 2_000,
};

/**
 * The KeyValueStore refuses a write whose `IfMatch` is not the store's current ETag: another writer
 * got in between. The data-plane API models this as ConflictException (409); 412/PreconditionFailed
 * is accepted too so that the retry does not depend on which of the two a given endpoint answers.
 */
export function isStaleEtag(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  return (
    e?.name === 'ConflictException' ||
    e?.name === 'PreconditionFailed' ||
    e?.name === 'PreconditionFailedException' ||
    e?.$metadata?.httpStatusCode === 412
  );
}

export interface KvsEdgeRouterOptions {
  /**
   * The KeyValueStore data-plane client (any region: the endpoint is global and derived from the
   * ARN), with the management-plane retries (MANAGEMENT_PLANE): throttles are the SDK's to retry.
   */
  readonly client: CloudFrontKeyValueStoreClient;
  /** The KeyValueStore associated with the viewer-request function (DOMAIN_ENV.keyValueStoreArn). */
  readonly kvsArn: string;
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** @default Math.random */
  readonly random?: () => number;
}

/**
 * The edge port on CloudFront (docs/contributors/architecture.md, "Custom domains"): one KeyValueStore entry per host name, read by the
 * viewer-request function on every request, so a write takes effect at the edge within seconds and
 * without a distribution deployment. Values are shaped by EDGE_VALUE only, so the function and the
 * domain flow cannot disagree on the format. Every write is DescribeKeyValueStore (current ETag)
 * then PutKey/DeleteKey with `IfMatch`; a stale ETag re-reads and retries (bounded, with jitter).
 */
export class KvsEdgeRouter implements EdgeRouter, EdgeCleanup {
  private readonly pacing: Pacing;

  constructor(private readonly options: KvsEdgeRouterOptions) {
    this.pacing = { sleep: options.sleep ?? REAL_PACING.sleep, random: options.random ?? REAL_PACING.random };
  }

  async serve(host: string, prefix: string): Promise<void> {
    await this.put(host, EDGE_VALUE.serve(prefix));
  }

  /** EDGE_VALUE.redirect refuses a status outside 301/302/307/308 and a malformed target host. */
  async redirect(host: string, to: string, status: number): Promise<void> {
    await this.put(host, EDGE_VALUE.redirect(to, status as RedirectStatus));
  }

  /** A removed domain keeps an explicit entry, so the function refuses it (404, no-store) at once. */
  async refuse(host: string): Promise<void> {
    await this.put(host, EDGE_VALUE.removed());
  }

  /**
   * Drops a removed host's refusal (EdgeCleanup): DescribeKeyValueStore (ETag), GetKey, then DeleteKey
   * with that ETag only when the value is still EDGE_VALUE.removed() and `stillRemoved()` holds. A
   * put after the ETag was read (a re-added domain going live) fails the delete with a conflict, and
   * the whole check runs again. An absent key counts as nothing to delete.
   */
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
      this.pacing,
    );
  }
}

/** Keys are normalised host names; the function's runtime reads keys of up to 512 characters. */
function checkedKey(host: string): string {
  if (host.length === 0 || host.length > KVS_LIMITS.keyChars) {
    throw new Error(`KeyValueStore key must be 1-${KVS_LIMITS.keyChars} characters: ${JSON.stringify(host)}`);
  }
  return host;
}
