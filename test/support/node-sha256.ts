import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/** The SDK's hash interface over node:crypto, for @smithy/signature-v4 in tests (the SDK brings @aws-crypto). */
export class NodeSha256 {
  private readonly secret: Buffer | undefined;
  private hash: Hash | Hmac;

  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.secret = secret === undefined ? undefined : toBuffer(secret);
    this.hash = this.create();
  }

  update(data: Uint8Array): void {
    this.hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.create();
  }

  private create(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', this.secret);
  }
}

function toBuffer(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
