import type { RuntimeConfig } from '../../contracts/plans.js';
import type { DomainStore, EdgeRouter } from '../domains/index.js';
import type { AccountStore } from '../keys/index.js';
import type { Clock } from '../shared/clock.js';
import { logger } from '../shared/powertools.js';
import { monotonicUlid } from '../shared/ulid.js';
import { type ProjectStore, type SiteStorage, SlugTakenError } from './ports.js';
import { type DeployRecord, deployPrefix, type ProjectRecord } from './project.js';
import { checkSlug } from './slug.js';
import { refuse } from '../shared/problem.js';

export interface DeployFile {
  /** Path inside the site, e.g. index.html or assets/app.js. */
  readonly path: string;
  readonly body: Uint8Array;
}

export interface ProjectView {
  readonly projectId: string;
  readonly accountId: string;
  readonly slug: string;
  readonly name: string;
  /** <slug>.<platform domain>: where the project is served once deployed. */
  readonly defaultDomain: string;
  readonly url: string;
  readonly deployState: ProjectRecord['deployState'];
  readonly liveDeployId?: string;
  readonly lastDeploy?: DeployRecord;
  readonly domains: ProjectRecord['domains'];
  readonly createdAt: string;
}

export interface ProjectServiceDeps {
  readonly accounts: AccountStore;
  readonly projects: ProjectStore;
  readonly domains: DomainStore;
  readonly storage: SiteStorage;
  readonly edge: EdgeRouter;
  readonly clock: Clock;
  readonly config: RuntimeConfig;
}

/** A deploy left in progress longer than this (its process died) no longer blocks the next one. */
const STALE_DEPLOY_MS = 15 * 60_000;
const MAX_FILES = 10_000;

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

export function contentTypeOf(path: string): string {
  const extension = path.split('.').pop()?.toLowerCase() ?? '';
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}

/** A relative path inside the site: no leading slash, no `.`/`..` segments, no backslashes. */
function checkPath(path: string): string {
  const segments = path.split('/');
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0') || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw refuse('invalid_request', `"${path.slice(0, 200)}" is not a valid file path inside the site.`, 400);
  }
  return path;
}

/** A domain the edge serves: active, or active before a re-verify that has not replaced it yet. */
const isLive = (d: { state: string; activeAt?: string }) => d.state === 'active' || (d.activeAt !== undefined && d.state !== 'removed');

/**
 * Projects and deploys. A deploy uploads a folder of static files under a new prefix and becomes
 * the live version only once every file is stored: then the edge is switched to it for the
 * project's default subdomain and its active custom domains, and the previous version stays live
 * until that moment (and after a failed deploy).
 */
export class ProjectService {
  constructor(private readonly deps: ProjectServiceDeps) {}

  defaultDomainOf(slug: string): string {
    return `${slug}.${this.deps.config.platform.domain}`;
  }

  async createProject(accountId: string, input: { slug: unknown; name?: unknown }): Promise<ProjectView> {
    if (!(await this.deps.accounts.get(accountId))) {
      throw refuse('account_not_found', `No account ${accountId}.`, 404);
    }
    const checked = checkSlug(typeof input.slug === 'string' ? input.slug : '');
    if (!checked.ok) throw refuse(checked.code, checked.message, checked.code === 'slug_taken' ? 409 : 400);
    const { slug } = checked;
    const name = typeof input.name === 'string' && input.name.trim() !== '' ? input.name.trim().slice(0, 100) : slug;
    const project: ProjectRecord = {
      projectId: `prj_${monotonicUlid(this.deps.clock.now())}`,
      accountId,
      slug,
      name,
      deployState: 'none',
      domains: { primary: this.defaultDomainOf(slug), redirects: [] },
      createdAt: new Date(this.deps.clock.now()).toISOString(),
    };
    try {
      await this.deps.projects.create(project);
    } catch (error) {
      if (error instanceof SlugTakenError) throw refuse('slug_taken', `The slug ${slug} is taken; choose another.`, 409);
      throw error;
    }
    return this.view(project);
  }

  async getProject(accountId: string, projectId: string): Promise<ProjectView> {
    return this.view(await this.project(accountId, projectId));
  }

  async listProjects(accountId: string): Promise<ProjectView[]> {
    if (!(await this.deps.accounts.get(accountId))) {
      throw refuse('account_not_found', `No account ${accountId}.`, 404);
    }
    const projects = await this.deps.projects.listByAccount(accountId);
    return projects.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((p) => this.view(p));
  }

  async deploy(accountId: string, projectId: string, files: readonly DeployFile[]): Promise<ProjectView> {
    const project = await this.project(accountId, projectId);
    if (files.length === 0) throw refuse('invalid_request', 'A deploy needs at least one file.', 400);
    if (files.length > MAX_FILES) throw refuse('invalid_request', `A deploy has at most ${MAX_FILES} files.`, 400);
    for (const file of files) checkPath(file.path);

    const nowMs = this.deps.clock.now();
    const running = project.lastDeploy;
    if (project.deployState === 'in_progress' && running && nowMs - Date.parse(running.startedAt) < STALE_DEPLOY_MS) {
      throw refuse('deploy_in_progress', `Deploy ${running.deployId} is still in progress; wait for it to finish.`, 409);
    }
    const deployId = `dep_${monotonicUlid(nowMs)}`;
    const started: DeployRecord = { deployId, state: 'in_progress', startedAt: new Date(nowMs).toISOString() };
    if (!(await this.deps.projects.update(projectId, { deployState: 'in_progress', lastDeploy: started }, project.deployState))) {
      throw refuse('deploy_in_progress', 'Another deploy of this project just started.', 409);
    }

    const prefix = deployPrefix(projectId, deployId);
    let bytes = 0;
    try {
      for (const file of files) {
        bytes += file.body.byteLength;
        await this.deps.storage.putFile(`${prefix}/${file.path}`, file.body, contentTypeOf(file.path));
      }
      // Every file is stored: switch the edge to this version for every host that serves it.
      for (const host of await this.servingHosts(project)) await this.deps.edge.serve(host, prefix);
    } catch (error) {
      // The cause stays in our logs; the owner learns that the live version is unchanged.
      logger.error('deploy failed', { projectId, deployId, error: error as Error });
      const failed: DeployRecord = {
        ...started,
        state: 'failed',
        finishedAt: new Date(this.deps.clock.now()).toISOString(),
        error: 'The files could not be stored. Retry the deploy.',
      };
      await this.deps.projects.update(projectId, { deployState: 'failed', lastDeploy: failed });
      throw refuse('deploy_failed', `Deploy ${deployId} failed and the live version is unchanged. Retry the deploy.`, 502);
    }
    const finished: DeployRecord = {
      ...started,
      state: 'succeeded',
      finishedAt: new Date(this.deps.clock.now()).toISOString(),
      fileCount: files.length,
      bytes,
    };
    await this.deps.projects.update(projectId, { deployState: 'succeeded', liveDeployId: deployId, lastDeploy: finished });
    return this.view({ ...project, deployState: 'succeeded', liveDeployId: deployId, lastDeploy: finished });
  }

  /** The default subdomain and every active custom domain that is not a redirect source. */
  private async servingHosts(project: ProjectRecord): Promise<string[]> {
    const redirecting = new Set(project.domains.redirects.map((r) => r.from));
    const domains = await this.deps.domains.listByProject(project.projectId);
    return [
      this.defaultDomainOf(project.slug),
      ...domains.filter((d) => isLive(d) && !redirecting.has(d.domain)).map((d) => d.domain),
    ];
  }

  private async project(accountId: string, projectId: string): Promise<ProjectRecord> {
    const project = await this.deps.projects.get(projectId);
    if (!project || project.accountId !== accountId) {
      throw refuse('project_not_found', `No project ${projectId} in account ${accountId}.`, 404);
    }
    return project;
  }

  private view(project: ProjectRecord): ProjectView {
    const defaultDomain = this.defaultDomainOf(project.slug);
    return {
      projectId: project.projectId,
      accountId: project.accountId,
      slug: project.slug,
      name: project.name,
      defaultDomain,
      url: `https://${defaultDomain}/`,
      deployState: project.deployState,
      ...(project.liveDeployId ? { liveDeployId: project.liveDeployId } : {}),
      ...(project.lastDeploy ? { lastDeploy: project.lastDeploy } : {}),
      domains: project.domains,
      createdAt: project.createdAt,
    };
  }
}
