// The deploy protocol of every client (docs/projects.md, "Deploying"), over fetch and WebCrypto:
// it runs in Node and in the browser alike.

/** Checked on the manifest before anything is uploaded (lambda/projects/deploy-manifest.ts). */
export const DEPLOY_LIMITS = {
  maxFiles: 10_000,
  maxDeployBytes: 100 * 1024 * 1024,
  maxFileBytes: 25 * 1024 * 1024,
} as const;

export interface UploadInstruction {
  readonly sha256: string;
  readonly url: string;
  readonly method: 'PUT';
  readonly headers: Readonly<Record<string, string>>;
  readonly expiresAt: string;
}

export interface StartedDeployBody {
  readonly deploy: { readonly deployId: string; readonly uploadCount: number; readonly uploadBytes: number };
  readonly uploads: readonly UploadInstruction[];
  readonly skipped: number;
}

/** How a client reaches the two control API calls of a deploy (its own auth and base URL). */
export interface DeployCalls {
  start(files: readonly { path: string; sha256: string; size: number }[]): Promise<StartedDeployBody>;
  /** Resolves with the finished deploy, or with the uploads still missing (a `files_missing` problem). */
  finalize(deployId: string): Promise<{ readonly missing?: readonly UploadInstruction[]; readonly deploy?: unknown }>;
}

export interface LocalFile {
  readonly path: string;
  readonly body: Uint8Array;
}

export interface DeployProgress {
  readonly uploadedFiles: number;
  readonly uploadFiles: number;
  readonly uploadedBytes: number;
  readonly uploadBytes: number;
}

export interface DeployOutcome {
  readonly deployId: string;
  readonly deploy: unknown;
  readonly skipped: number;
  readonly uploadedFiles: number;
  readonly uploadedBytes: number;
}

/** SHA-256 of a file's bytes, lower-case hex (the key its content is stored under). */
async function sha256Hex(body: Uint8Array): Promise<string> {
  // A Node Buffer's type allows a SharedArrayBuffer, which the DOM typings of digest() and fetch() refuse.
  const digest = await globalThis.crypto.subtle.digest('SHA-256', body as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Uploads in flight at once: enough to fill a link, few enough for a browser's per-host limit. */
const UPLOAD_CONCURRENCY = 6;

/** Sends the manifest, PUTs the contents the platform lacks, and finalizes; what is still missing is sent once more. */
export async function deploySite(
  calls: DeployCalls,
  files: readonly LocalFile[],
  options: { readonly fetch?: typeof fetch; readonly onProgress?: (progress: DeployProgress) => void } = {},
): Promise<DeployOutcome> {
  const put = options.fetch ?? globalThis.fetch;
  const manifest = await Promise.all(
    files.map(async (f) => ({ path: f.path, sha256: await sha256Hex(f.body), size: f.body.byteLength })),
  );
  const bodies = new Map(manifest.map((entry, i) => [entry.sha256, files[i]?.body as Uint8Array]));
  const started = await calls.start(manifest);
  const { deployId } = started.deploy;
  let uploadedFiles = 0;
  let uploadedBytes = 0;
  const uploadBytes = started.uploads.reduce((sum, u) => sum + (bodies.get(u.sha256)?.byteLength ?? 0), 0);
  const upload = async (uploads: readonly UploadInstruction[]) => {
    const queue = [...uploads];
    await Promise.all(
      Array.from({ length: Math.min(UPLOAD_CONCURRENCY, queue.length) }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const body = bodies.get(next.sha256);
          if (!body) throw new Error(`the platform asked for content ${next.sha256}, which is not in this deploy`);
          const init = { method: next.method, headers: next.headers, body: body as Uint8Array<ArrayBuffer> };
          const res = await put(next.url, init);
          if (!res.ok) throw new Error(`upload of ${next.sha256} failed: ${res.status} ${await res.text()}`);
          uploadedFiles++;
          uploadedBytes += body.byteLength;
          options.onProgress?.({ uploadedFiles, uploadFiles: started.uploads.length, uploadedBytes, uploadBytes });
        }
      }),
    );
  };
  await upload(started.uploads);
  let finalized = await calls.finalize(deployId);
  if (finalized.missing) {
    await upload(finalized.missing);
    finalized = await calls.finalize(deployId);
    if (finalized.missing) throw new Error(`${finalized.missing.length} files could not be uploaded; deploy again.`);
  }
  return { deployId, deploy: finalized.deploy, skipped: started.skipped, uploadedFiles, uploadedBytes };
}
