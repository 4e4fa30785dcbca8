import { randomBytes } from 'node:crypto';
import { deploySite, type LocalFile } from '../contracts/deploys.js';
import { controlFetch, httpDeployCalls } from '../test/support/deploys.js';
import { type BenchOptions, type Figure, onPlatform } from './lib.js';

/**
 * Issue 25 item 1: the time to deploy 30 MB in 500 files through the local control API, then the
 * bytes a redeploy changing one file uploads: that file's size exactly (contents are addressed by SHA-256).
 */
export async function deploys(options: BenchOptions): Promise<Figure[]> {
  const fileCount = options.smoke ? 50 : 500;
  const fileBytes = Math.floor((options.smoke ? 3 : 30) * 1024 * 1024 / fileCount);
  return onPlatform({ worker: false }, async (platform) => {
    const accountId = platform.demoAccounts.pro.accountId;
    const call = controlFetch(platform.controlUrl);
    const created = await call('POST', `/accounts/${accountId}/projects`, { slug: `bench-${Date.now()}` });
    const calls = httpDeployCalls(call, `/accounts/${accountId}/projects/${created.body.projectId as string}`);
    const files: LocalFile[] = [{ path: 'index.html', body: new TextEncoder().encode('<h1>v1</h1>') }];
    for (let i = 1; i < fileCount; i++) files.push({ path: `assets/chunk-${i}.bin`, body: randomBytes(fileBytes) });
    const totalBytes = files.reduce((sum, f) => sum + f.body.byteLength, 0);

    const t = performance.now();
    const first = await deploySite(calls, files);
    const seconds = (performance.now() - t) / 1000;

    const changed: LocalFile = { path: 'index.html', body: new TextEncoder().encode('<h1>version two</h1>') };
    const again = await deploySite(calls, [changed, ...files.slice(1)]);
    return [
      {
        figure: `deploy ${fileCount} files / ${(totalBytes / 1024 / 1024).toFixed(0)} MB (local)`,
        value: `${seconds.toFixed(1)} s`,
        goal: '< 60 s',
        pass: seconds < 60,
        details: {
          files: fileCount,
          bytes: totalBytes,
          uploadedFiles: first.uploadedFiles,
          uploadedBytes: first.uploadedBytes,
        },
      },
      {
        figure: 'redeploy changing one file: bytes uploaded',
        value: `${again.uploadedBytes} B`,
        goal: `= the changed file (${changed.body.byteLength} B)`,
        pass: again.uploadedBytes === changed.body.byteLength && again.uploadedFiles === 1,
        details: { uploadedFiles: again.uploadedFiles, skipped: again.skipped },
      },
    ];
  });
}
