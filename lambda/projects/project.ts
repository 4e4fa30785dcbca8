import type { components } from '../../contracts/openapi/control-api.js';
import type { Redirect } from '../../contracts/domains.js';

export type DeployState = components['schemas']['Project']['deployState'];
/** A deploy as its history shows it (`by`: the owner's e-mail or id, or `operator`). */
export type DeployRecord = components['schemas']['Deploy'];

export interface ProjectRecord {
  readonly projectId: string;
  readonly accountId: string;
  /** Served at <slug>.<platform domain>; unique platform-wide. */
  readonly slug: string;
  readonly name: string;
  readonly deployState: DeployState;
  /** The deploy the edge serves. */
  readonly liveDeployId?: string;
  /** Newest first, at most DEPLOY_HISTORY. */
  readonly deploys?: readonly DeployRecord[];
  readonly domains: { readonly primary: string; readonly redirects: readonly Redirect[] };
  readonly createdAt: string;
  readonly updatedAt?: string;
}

export const projectPrefix = (projectId: string) => `projects/${projectId}/`;

export const deployPrefix = (projectId: string, deployId: string) => `projects/${projectId}/deploys/${deployId}`;

/** Uploads by SHA-256, stored once per project (a hash proves nothing about another account's files). */
export const contentPrefix = (projectId: string) => `projects/${projectId}/content/`;
export const contentKey = (projectId: string, sha256: string) => `${contentPrefix(projectId)}${sha256}`;

/** Outside any served prefix. */
export const manifestKey = (projectId: string, deployId: string) => `projects/${projectId}/manifests/${deployId}.json`;
