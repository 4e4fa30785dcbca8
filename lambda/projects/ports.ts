import type { UploadInstruction } from '../../contracts/deploys.js';
import type { ManifestFile } from './deploy-manifest.js';
import type { DeployState, ProjectRecord } from './project.js';

export class SlugTakenError extends Error {
  /** `heldUntil`: the slug of a deleted project is held until then. */
  constructor(readonly slug: string, readonly heldUntil?: string) {
    super(`slug ${slug} is taken`);
    this.name = 'SlugTakenError';
  }
}

export type ProjectChanges = Partial<Omit<ProjectRecord, 'projectId' | 'accountId' | 'slug'>>;

export interface ProjectStore {
  /** Throws SlugTakenError when the slug is another project's, or still held at `nowIso`. */
  create(project: ProjectRecord, nowIso: string): Promise<void>;
  get(projectId: string): Promise<ProjectRecord | undefined>;
  listByAccount(accountId: string): Promise<ProjectRecord[]>;
  /** With `expectedDeployState`, only if it still holds (two deploys cannot both go live); returns whether it applied. */
  update(projectId: string, changes: ProjectChanges, expectedDeployState?: DeployState): Promise<boolean>;
  delete(project: ProjectRecord, heldUntil: string): Promise<void>;
}

/** The site bucket: uploads land at content keys by presigned PUTs; publishing copies them to the deploy's prefix. */
export interface SiteStorage {
  /** sha256 → size in bytes. */
  storedContent(projectId: string): Promise<Map<string, number>>;
  /** Pinned to the file's length and SHA-256. */
  presignUpload(projectId: string, file: Pick<ManifestFile, 'sha256' | 'size'>): Promise<UploadInstruction>;
  putManifest(projectId: string, deployId: string, files: readonly ManifestFile[]): Promise<void>;
  getManifest(projectId: string, deployId: string): Promise<ManifestFile[] | undefined>;
  publish(projectId: string, deployId: string, files: readonly ManifestFile[]): Promise<void>;
  deleteDeploy(projectId: string, deployId: string): Promise<void>;
  deleteContent(projectId: string, hashes: readonly string[]): Promise<void>;
  deleteProject(projectId: string): Promise<void>;
}

/** What deploys and rollbacks change at the edge (the domains capability's EdgeRouter satisfies it). */
export interface SiteEdge {
  serve(host: string, prefix: string): Promise<void>;
  refuse(host: string): Promise<void>;
}

/** A project's custom domains, implemented by lambda/domains/project-domains.ts (which depends on this capability). */
export interface ProjectDomainsPort {
  liveDomains(projectId: string): Promise<string[]>;
  /** Every domain not removed yet. */
  heldDomains(projectId: string): Promise<string[]>;
  /** Removes every domain (refused at the edge at once) and starts their releases; returns the names. */
  releaseAll(project: ProjectRecord): Promise<string[]>;
}
