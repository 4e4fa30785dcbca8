import type { Redirect } from '../../contracts/domains.js';

/** Deploy state of a project: none yet, one in progress, or how the last one ended. */
export type DeployState = 'none' | 'in_progress' | 'succeeded' | 'failed';

/** One deploy in the project's history (its manifest is stored beside its files: manifestKey). */
export interface DeployRecord {
  readonly deployId: string;
  /** `in_progress` while its files are uploaded; `succeeded` once published; `failed` when it could not be. */
  readonly state: Exclude<DeployState, 'none'>;
  readonly startedAt: string;
  readonly finishedAt?: string;
  /** Who started it: the owner's e-mail (or id), or `operator`. */
  readonly by: string;
  readonly fileCount: number;
  readonly bytes: number;
  /** Files the deploy asked to upload: the others were already stored (same SHA-256). */
  readonly uploadCount: number;
  readonly uploadBytes: number;
  readonly error?: string;
}

export interface ProjectRecord {
  readonly projectId: string;
  readonly accountId: string;
  /** Lower-case DNS label; the project is served at <slug>.<platform domain>. Unique platform-wide. */
  readonly slug: string;
  readonly name: string;
  readonly deployState: DeployState;
  /** The deploy the edge serves (the last published or the one rolled back to); absent before the first success. */
  readonly liveDeployId?: string;
  /** The deploy history, newest first: at most DEPLOY_HISTORY kept (older ones are pruned). */
  readonly deploys?: readonly DeployRecord[];
  /** Project domain configuration (interface document): primary domain and redirects. */
  readonly domains: { readonly primary: string; readonly redirects: readonly Redirect[] };
  readonly createdAt: string;
  readonly updatedAt?: string;
}

/** Every object of a project in the site bucket is under this prefix (content, deploys, manifests). */
export const projectPrefix = (projectId: string) => `projects/${projectId}/`;

/** Where a deploy's files live, in the site storage and in the edge's serve entries. */
export const deployPrefix = (projectId: string, deployId: string) => `projects/${projectId}/deploys/${deployId}`;

/**
 * Uploaded files, addressed by their SHA-256 (hex) within the project: a file that did not change
 * is stored once, whatever deploy or path it belongs to. Scoped per project so that a hash proves
 * nothing about another account's files.
 */
export const contentPrefix = (projectId: string) => `projects/${projectId}/content/`;
export const contentKey = (projectId: string, sha256: string) => `${contentPrefix(projectId)}${sha256}`;

/** The manifest of a deploy (path → sha256, size, content type), outside any served prefix. */
export const manifestKey = (projectId: string, deployId: string) => `projects/${projectId}/manifests/${deployId}.json`;
