import { DEPLOY_LIMITS, type LocalFile } from '../../contracts/deploys';
import { formatBytes } from './format';

/** A chosen file and its path from the site's root (a chosen folder's own name dropped: `site/index.html` → `index.html`). */
export interface SiteFile {
  readonly path: string;
  readonly file: File;
}

/** A limit in the service's words (25 MB, 100 MB: binary megabytes, as lambda/projects/deploy-manifest.ts says them). */
export const limitMb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** The service's limits (contracts/deploys.ts), checked here before anything is read or sent. */
export const { maxFiles: MAX_FILES, maxFileBytes: MAX_FILE_BYTES, maxDeployBytes: MAX_DEPLOY_BYTES } = DEPLOY_LIMITS;

/** Names the platform and the CLI never need, that file managers leave in folders. */
const SYSTEM_FILES = new Set(['.DS_Store', 'Thumbs.db', 'desktop.ini']);

export interface Selection {
  readonly files: readonly SiteFile[];
  readonly folder: string | undefined;
  /** System files left out (.DS_Store and the like). */
  readonly skipped: readonly string[];
  readonly totalBytes: number;
  /** Why it cannot be deployed; empty when it can. */
  readonly problems: readonly string[];
}

/** Reads what the owner chose into site paths, and says what would stop the deploy. */
export function selectFiles(list: readonly File[]): Selection {
  const raw = list.map((file) => ({ file, relative: file.webkitRelativePath || file.name }));
  // A folder pick names every file `<folder>/…`: drop that common top folder.
  const tops = new Set(raw.map((r) => (r.relative.includes('/') ? r.relative.split('/')[0] : undefined)));
  const [onlyTop] = tops;
  const folder = tops.size === 1 && onlyTop !== undefined ? onlyTop : undefined;
  const skipped: string[] = [];
  const files: SiteFile[] = [];
  for (const { file, relative } of raw) {
    const path = folder === undefined ? relative : relative.slice(folder.length + 1);
    if (SYSTEM_FILES.has(path.split('/').pop() ?? '')) skipped.push(path);
    else files.push({ path, file });
  }
  files.sort((a, b) => a.path.localeCompare(b.path));

  const problems: string[] = [];
  const totalBytes = files.reduce((sum, f) => sum + f.file.size, 0);
  if (files.length === 0) {
    problems.push('The selection has no files to publish.');
  } else {
    if (!files.some((f) => f.path === 'index.html')) {
      // An index.html one level or more down: that folder is probably the site.
      const nested = files
        .map((f) => f.path)
        .filter((p) => p.endsWith('/index.html'))
        .sort((a, b) => a.split('/').length - b.split('/').length)[0];
      const hint = folder !== undefined && nested ? ` There is one in ${folder}/${nested.slice(0, -'/index.html'.length)}: choose that folder?` : '';
      problems.push(
        folder === undefined
          ? 'There is no index.html among these files. Visitors of your site get the index.html at its root: include it, or choose the folder that holds it.'
          : `The folder “${folder}” has no index.html at its top level. Visitors of your site get the index.html at its root: choose the folder that holds it (your build output, e.g. dist).${hint}`,
      );
    }
    // The service takes relative paths: no empty, `.` or `..` segments, no backslash or NUL.
    const badPath = (path: string) => /[\\\0]/.test(path) || path.split('/').some((s) => ['', '.', '..'].includes(s));
    const bad = files.find((f) => badPath(f.path));
    if (bad) problems.push(`“${bad.path}” cannot be published: its name has a backslash or an empty, “.” or “..” part. Rename it.`);
    const duplicate = files.find((f, i) => i > 0 && files[i - 1]?.path === f.path); // sorted by path
    if (duplicate) problems.push(`Two files are named “${duplicate.path}”. Choose one.`);
    if (files.length > MAX_FILES) {
      problems.push(`That is ${files.length.toLocaleString('en')} files; a deploy has at most ${MAX_FILES.toLocaleString('en')}.`);
    }
    const big = files.find((f) => f.file.size > MAX_FILE_BYTES);
    if (big) {
      problems.push(`“${big.path}” is ${formatBytes(big.file.size)}; a file may be at most ${limitMb(MAX_FILE_BYTES)}. Leave it out or host it elsewhere.`);
    }
    if (totalBytes > MAX_DEPLOY_BYTES) {
      problems.push(`These files are ${formatBytes(totalBytes)}; a deploy may be at most ${limitMb(MAX_DEPLOY_BYTES)}. Leave out large files (videos, source maps).`);
    }
  }
  return { files, folder, skipped, totalBytes, problems };
}

/** Reads every chosen file's bytes, reporting how many are done (they are hashed, then only the new ones sent). */
export async function readFiles(files: readonly SiteFile[], onProgress: (done: number) => void): Promise<LocalFile[]> {
  const out: LocalFile[] = [];
  for (const f of files) {
    try {
      out.push({ path: f.path, body: new Uint8Array(await f.file.arrayBuffer()) });
    } catch {
      throw new Error(`${f.file.name} could not be read. Choose the folder again.`);
    }
    onProgress(out.length);
  }
  return out;
}
