import type { DeployState, ProjectRecord } from './project.js';

export class SlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`slug ${slug} is taken`);
    this.name = 'SlugTakenError';
  }
}

export interface ProjectStore {
  /** Stores a new project; throws SlugTakenError when another project has the slug. */
  create(project: ProjectRecord): Promise<void>;
  get(projectId: string): Promise<ProjectRecord | undefined>;
  listByAccount(accountId: string): Promise<ProjectRecord[]>;
  /**
   * Applies `changes`; when `expectedDeployState` is given, only if the stored state still is
   * that (so two deploys cannot both flip the live version). False when the condition failed.
   */
  update(projectId: string, changes: Partial<Omit<ProjectRecord, 'projectId' | 'accountId' | 'slug'>>, expectedDeployState?: DeployState): Promise<boolean>;
}

/** Where deployed files live: S3 on AWS, a directory locally. Keys are `<deploy prefix>/<path>`. */
export interface SiteStorage {
  putFile(key: string, body: Uint8Array, contentType: string): Promise<void>;
}
