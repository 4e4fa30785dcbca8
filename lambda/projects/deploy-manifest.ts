import { DEPLOY_LIMITS } from '../../contracts/deploys.js';
import { refuse } from '../shared/problem.js';

export interface ManifestFile {
  /** e.g. index.html or assets/app.js */
  readonly path: string;
  /** Lower-case hex: the key the content is stored under. */
  readonly sha256: string;
  readonly size: number;
  readonly contentType: string;
}

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  xml: 'application/xml',
  pdf: 'application/pdf',
  wasm: 'application/wasm',
  map: 'application/json',
};

/** The Content-Type a file is served with, from its extension (the client's guess is not trusted). */
export function contentTypeOf(path: string): string {
  const extension = path.split('.').pop()?.toLowerCase() ?? '';
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const MAX_PATH_LENGTH = 512;

/** A relative path inside the site: no leading slash, no `.`/`..` or empty segments, no backslashes or control characters. */
function checkPath(path: unknown): string {
  const text = typeof path === 'string' ? path : '';
  const segments = text.split('/');
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  const unsafe = text === '' || text.length > MAX_PATH_LENGTH || text.startsWith('/') || /[\\\u0000-\u001f]/.test(text) ||
    segments.some((s) => s === '' || s === '.' || s === '..');
  if (unsafe) throw refuse('invalid_request', `"${text.slice(0, 200)}" is not a valid file path inside the site.`, 400);
  return text;
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** The manifest checked: paths valid and unique, hashes SHA-256, and the limits (413 with the figures). */
export function checkManifest(input: unknown): ManifestFile[] {
  if (!Array.isArray(input) || input.length === 0) {
    throw refuse('invalid_request', 'files must be a non-empty list of {path, sha256, size}.', 400);
  }
  if (input.length > DEPLOY_LIMITS.maxFiles) {
    throw refuse('too_many_files', `A deploy has at most ${DEPLOY_LIMITS.maxFiles} files; this one has ${input.length}.`, 413);
  }
  const seen = new Set<string>();
  let total = 0;
  const files = input.map((entry: unknown): ManifestFile => {
    const { path: rawPath, sha256, size } = (entry ?? {}) as { path?: unknown; sha256?: unknown; size?: unknown };
    const path = checkPath(rawPath);
    if (seen.has(path)) throw refuse('invalid_request', `${path} is listed twice.`, 400);
    seen.add(path);
    if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
      throw refuse('invalid_request', `${path}: sha256 must be the file's SHA-256 in lower-case hex.`, 400);
    }
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
      throw refuse('invalid_request', `${path}: size must be the file's length in bytes.`, 400);
    }
    if (size > DEPLOY_LIMITS.maxFileBytes) {
      throw refuse('file_too_large', `${path} is ${mb(size)}; a file may be at most ${mb(DEPLOY_LIMITS.maxFileBytes)}.`, 413);
    }
    total += size;
    return { path, sha256, size, contentType: contentTypeOf(path) };
  });
  if (total > DEPLOY_LIMITS.maxDeployBytes) {
    throw refuse('deploy_too_large', `This deploy is ${mb(total)}; a deploy may be at most ${mb(DEPLOY_LIMITS.maxDeployBytes)}.`, 413);
  }
  return files;
}
