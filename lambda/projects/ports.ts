import type { ManifestFile } from './deploy-manifest.js';
import type { DeployState, ProjectRecord } from './project.js';

export class SlugTakenError extends Error {
  constructor(
    readonly slug: string,
    /** Set when the slug belonged to a deleted project and is still held (ISO 8601). */
    readonly heldUntil?: string,
  ) {
    super(`slug ${slug} is taken`);
    this.name = 'SlugTakenError';
  }
}

export type ProjectChanges = Partial<Omit<ProjectRecord, 'projectId' | 'accountId' | 'slug'>>;

export interface ProjectStore {
  /**
   * Stores a new project; throws SlugTakenError when another project has the slug, or a deleted
   * one held it less than its hold ago (`nowIso` decides).
   */
  create(project: ProjectRecord, nowIso: string): Promise<void>;
  get(projectId: string): Promise<ProjectRecord | undefined>;
  listByAccount(accountId: string): Promise<ProjectRecord[]>;
  /**
   * Applies `changes`; when `expectedDeployState` is given, only if the stored state still is
   * that (so two deploys cannot both flip the live version). False when the condition failed.
   */
  update(projectId: string, changes: ProjectChanges, expectedDeployState?: DeployState): Promise<boolean>;
  /** Deletes the project and keeps its slug from reuse until `heldUntil` (ISO 8601). */
  delete(project: ProjectRecord, heldUntil: string): Promise<void>;
}

/** Where the browser or the CLI sends one file: a presigned PUT with the headers it must carry. */
export interface UploadTarget {
  readonly sha256: string;
  readonly url: string;
  readonly method: 'PUT';
  /** Headers the PUT must send exactly (they are signed): Content-Type, the checksum. */
  readonly headers: Readonly<Record<string, string>>;
  readonly expiresAt: string;
}

/**
 * The site bucket (S3 on AWS, s3rver locally). Uploads land at content keys (contentKey) through
 * presigned PUTs; publishing copies them to the deploy's prefix, which the edge serves.
 */
export interface SiteStorage {
  /** The content objects of a project that are stored now: sha256 → size in bytes. */
  storedContent(projectId: string): Promise<Map<string, number>>;
  /** A presigned PUT for one content object, pinned to its length and SHA-256. */
  presignUpload(projectId: string, file: Pick<ManifestFile, 'sha256' | 'size'>): Promise<UploadTarget>;
  putManifest(projectId: string, deployId: string, files: readonly ManifestFile[]): Promise<void>;
  getManifest(projectId: string, deployId: string): Promise<ManifestFile[] | undefined>;
  /** Copies every file from its content key to `<deploy prefix>/<path>`, with its Content-Type. */
  publish(projectId: string, deployId: string, files: readonly ManifestFile[]): Promise<void>;
  /** Deletes a deploy's published files and manifest. */
  deleteDeploy(projectId: string, deployId: string): Promise<void>;
  /** Deletes content objects by hash. */
  deleteContent(projectId: string, hashes: readonly string[]): Promise<void>;
  /** Deletes every object of the project. */
  deleteProject(projectId: string): Promise<void>;
}

/** What deploys and rollbacks change at the edge (the domains capability's EdgeRouter satisfies it). */
export interface SiteEdge {
  serve(host: string, prefix: string): Promise<void>;
  refuse(host: string): Promise<void>;
}

/**
 * What the projects capability needs of a project's custom domains. Implemented by the domains
 * capability (lambda/domains/project-domains.ts), which depends on this one, never the reverse.
 */
export interface ProjectDomainsPort {
  /** The project's live custom domains (served at the edge), by name. */
  liveDomains(projectId: string): Promise<string[]>;
  /** Every domain of the project that is not removed yet: what a delete releases. */
  heldDomains(projectId: string): Promise<string[]>;
  /**
   * Removes every domain of the project (the edge refuses it at once) and starts the release of
   * each one's tenant through the domain flow's release branch. A release that cannot be started
   * now is left recorded on the domain for the drift sweep. Returns the names released.
   */
  releaseAll(project: ProjectRecord): Promise<string[]>;
}
