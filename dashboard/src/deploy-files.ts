import { formatBytes } from './format';
import type { DeployFile } from './types';

/**
 * The files of a deploy as the owner chose them: a folder (`webkitdirectory`, every file named
 * `folder/…` by `webkitRelativePath`) or loose files. The paths the service gets are relative to
 * the site's root, so the chosen folder's own name is dropped: `site/index.html` → `index.html`.
 */
export interface SiteFile {
  readonly path: string;
  readonly file: File;
}

/** The service refuses more (lambda/projects/project-service.ts, MAX_FILES). */
export const MAX_FILES = 10_000;

/**
 * The largest request body we send. On AWS the control API runs in Lambda, whose request payload
 * limit is 6 MB (6,291,456 bytes) for the whole event: the body plus headers and request context.
 * Base64 makes 3 bytes 4, so this is about 4.5 MB of files, as docs/owners.md says.
 */
export const MAX_BODY_BYTES = 6_000_000;

/** Roughly how much of files fits, for the hint (MAX_BODY_BYTES × 3/4). */
export const MAX_SITE_BYTES_HINT = 'about 4.5 MB';

/** Names the platform and the CLI never need, that file managers leave in folders. */
const SYSTEM_FILES = new Set(['.DS_Store', 'Thumbs.db', 'desktop.ini']);

export interface Selection {
  readonly files: readonly SiteFile[];
  /** The chosen folder's name, when a folder was chosen. */
  readonly folder: string | undefined;
  /** System files left out (.DS_Store and the like). */
  readonly skipped: readonly string[];
  readonly totalBytes: number;
  /** The JSON body of the deploy request, in bytes, once encoded. */
  readonly bodyBytes: number;
  /** Why it cannot be deployed; empty when it can. */
  readonly problems: readonly string[];
}

const base64Length = (bytes: number) => 4 * Math.ceil(bytes / 3);

/** The bytes of `{"files":[{"path":…,"content":…},…]}`, without reading a file. */
export function requestBodyBytes(files: readonly { readonly path: string; readonly size: number }[]): number {
  const encoder = new TextEncoder();
  let total = '{"files":[]}'.length;
  for (const [i, f] of files.entries()) {
    total += (i > 0 ? 1 : 0) + encoder.encode(JSON.stringify({ path: f.path, content: '' })).length + base64Length(f.size);
  }
  return total;
}

/** A path the service accepts: relative, no empty, `.` or `..` segments, no backslash or NUL. */
function pathProblem(path: string): string | undefined {
  const segments = path.split('/');
  if (path.includes('\\') || path.includes('\0') || segments.some((s) => s === '' || s === '.' || s === '..')) {
    return `“${path}” cannot be published: its name has a backslash or an empty, “.” or “..” part. Rename it.`;
  }
  return undefined;
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
  const bodyBytes = requestBodyBytes(files.map((f) => ({ path: f.path, size: f.file.size })));
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
    const bad = files.map((f) => pathProblem(f.path)).find((p) => p !== undefined);
    if (bad) problems.push(bad);
    const duplicate = files.find((f, i) => i > 0 && files[i - 1]?.path === f.path); // sorted by path
    if (duplicate) problems.push(`Two files are named “${duplicate.path}”. Choose one.`);
    if (files.length > MAX_FILES) {
      problems.push(`That is ${files.length.toLocaleString('en')} files; a deploy has at most ${MAX_FILES.toLocaleString('en')}.`);
    }
    if (bodyBytes > MAX_BODY_BYTES) {
      problems.push(
        `These files are too large to deploy from the dashboard: ${formatBytes(totalBytes)} of files, ` +
        `${formatBytes(bodyBytes)} once encoded for upload, and a deploy carries at most ` +
        `${formatBytes(MAX_BODY_BYTES)} encoded (${MAX_SITE_BYTES_HINT} of files). Leave out large files ` +
        '(videos, source maps) or host them elsewhere.',
      );
    }
  }
  return { files, folder, skipped, totalBytes, bodyBytes, problems };
}

/** A file's bytes as base64 (a data: URL without its `data:…;base64,` head). */
function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = typeof reader.result === 'string' ? reader.result : '';
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(new Error(`${file.name} could not be read. Choose the folder again.`));
    reader.readAsDataURL(file);
  });
}

/** Reads every file, reporting how many are done. */
export async function encodeFiles(
  files: readonly SiteFile[],
  onProgress: (done: number) => void,
): Promise<DeployFile[]> {
  const out: DeployFile[] = [];
  for (const f of files) {
    out.push({ path: f.path, content: await readBase64(f.file) });
    onProgress(out.length);
  }
  return out;
}
