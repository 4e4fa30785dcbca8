/** Deploy state of a project (issue: none, in progress, succeeded, failed). */
export type DeployState = 'none' | 'in_progress' | 'succeeded' | 'failed';

export interface DeployRecord {
  readonly deployId: string;
  readonly state: Exclude<DeployState, 'none'>;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly fileCount?: number;
  readonly bytes?: number;
  readonly error?: string;
}

import type { Redirect } from '../domains/index.js';

export interface ProjectRecord {
  readonly projectId: string;
  readonly accountId: string;
  /** Lower-case DNS label; the project is served at <slug>.<platform domain>. Unique platform-wide. */
  readonly slug: string;
  readonly name: string;
  readonly deployState: DeployState;
  /** The deploy that is live (the last successful one); absent before the first success. */
  readonly liveDeployId?: string;
  readonly lastDeploy?: DeployRecord;
  /** Project domain configuration (interface document): primary domain and redirects. */
  readonly domains: { readonly primary: string; readonly redirects: readonly Redirect[] };
  readonly createdAt: string;
  readonly updatedAt?: string;
}

/** Where a deploy's files live, in the site storage and in the edge's serve entries. */
export const deployPrefix = (projectId: string, deployId: string) => `projects/${projectId}/deploys/${deployId}`;
