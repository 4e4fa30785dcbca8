import type { AccountStore } from '../keys/index.js';
import { type Clock, nowIso } from '../shared/clock.js';
import { monotonicUlid } from '../shared/ulid.js';
import { HttpProblem, refuse } from '../shared/problem.js';
import { type ProjectDomainsPort, type ProjectStore, type SiteEdge, type SiteStorage, SlugTakenError } from './ports.js';
import type { DeployRecord, ProjectRecord } from './project.js';
import { checkSlug } from './slug.js';

/** How long a deleted project's slug cannot be claimed again, so its old URL cannot be taken over at once. */
const SLUG_HOLD_DAYS = 30;
const MAX_NAME_LENGTH = 100;

export type ProjectView = Omit<ProjectRecord, 'deploys'> & {
  readonly defaultDomain: string;
  readonly url: string;
  readonly lastDeploy?: DeployRecord;
};

export interface ProjectServiceDeps {
  readonly accounts: AccountStore;
  readonly projects: ProjectStore;
  readonly domains: ProjectDomainsPort;
  readonly storage: SiteStorage;
  readonly edge: SiteEdge;
  readonly clock: Clock;
  readonly platformDomain: string;
}

/** The project, if it belongs to the account; 404 otherwise (another account's project is not named). */
export async function ownedProject(store: ProjectStore, accountId: string, projectId: string): Promise<ProjectRecord> {
  const project = await store.get(projectId);
  if (!project || project.accountId !== accountId) {
    throw refuse('project_not_found', `No project ${projectId} in account ${accountId}.`, 404);
  }
  return project;
}

/** Name as stored: trimmed, at most 100 characters; the slug when none is given. */
function projectName(input: unknown, fallback?: string): string {
  const name = typeof input === 'string' ? input.trim() : '';
  if (name === '') {
    if (fallback !== undefined) return fallback;
    throw refuse('invalid_request', 'name must be a non-empty string.', 400);
  }
  if (name.length > MAX_NAME_LENGTH) throw refuse('invalid_request', `name may be at most ${MAX_NAME_LENGTH} characters.`, 400);
  return name;
}

/** Projects: create, list, rename (the slug, the address, stays) and delete. Deploys: deploy-service.ts. */
export class ProjectService {
  constructor(private readonly deps: ProjectServiceDeps) {}

  defaultDomainOf(slug: string): string {
    return `${slug}.${this.deps.platformDomain}`;
  }

  private async account(accountId: string): Promise<void> {
    if (!(await this.deps.accounts.get(accountId))) throw refuse('account_not_found', `No account ${accountId}.`, 404);
  }

  async createProject(accountId: string, input: { slug: unknown; name?: unknown }): Promise<ProjectView> {
    await this.account(accountId);
    const checked = checkSlug(typeof input.slug === 'string' ? input.slug : '');
    if (!checked.ok) throw refuse(checked.code, checked.message, checked.code === 'slug_taken' ? 409 : 400);
    const { slug } = checked;
    const project: ProjectRecord = {
      projectId: `prj_${monotonicUlid(this.deps.clock.now())}`,
      accountId,
      slug,
      name: projectName(input.name, slug),
      deployState: 'none',
      domains: { primary: this.defaultDomainOf(slug), redirects: [] },
      createdAt: nowIso(this.deps.clock),
    };
    try {
      await this.deps.projects.create(project, nowIso(this.deps.clock));
    } catch (error) {
      if (!(error instanceof SlugTakenError)) throw error;
      if (error.heldUntil) {
        throw new HttpProblem({
          status: 409,
          code: 'slug_held',
          detail: `The slug ${slug} belonged to a deleted project and is held until ${error.heldUntil}, ` +
            'so its old address cannot be taken over; choose another.',
          extensions: { heldUntil: error.heldUntil },
        });
      }
      throw refuse('slug_taken', `The slug ${slug} is taken; choose another.`, 409);
    }
    return this.view(project);
  }

  async getProject(accountId: string, projectId: string): Promise<ProjectView> {
    return this.view(await ownedProject(this.deps.projects, accountId, projectId));
  }

  async listProjects(accountId: string): Promise<ProjectView[]> {
    await this.account(accountId);
    const projects = await this.deps.projects.listByAccount(accountId);
    return projects.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((p) => this.view(p));
  }

  async renameProject(accountId: string, projectId: string, input: { name?: unknown }): Promise<ProjectView> {
    const project = await ownedProject(this.deps.projects, accountId, projectId);
    const changes = { name: projectName(input.name), updatedAt: nowIso(this.deps.clock) };
    if (!(await this.deps.projects.update(projectId, changes))) {
      throw refuse('project_not_found', `No project ${projectId} in account ${accountId}.`, 404);
    }
    return this.view({ ...project, ...changes });
  }

  /** Custom domains first, then the default subdomain, files and record; every step can run again. */
  async deleteProject(accountId: string, projectId: string) {
    const project = await ownedProject(this.deps.projects, accountId, projectId);
    const releasedDomains = await this.deps.domains.releaseAll(project);
    await this.deps.edge.refuse(this.defaultDomainOf(project.slug));
    await this.deps.storage.deleteProject(projectId);
    const slugHeldUntil = new Date(this.deps.clock.now() + SLUG_HOLD_DAYS * 86_400_000).toISOString();
    await this.deps.projects.delete(project, slugHeldUntil);
    return { projectId, deleted: true, releasedDomains, slugHeldUntil };
  }

  view(project: ProjectRecord): ProjectView {
    const { deploys, ...record } = project;
    const defaultDomain = this.defaultDomainOf(project.slug);
    const lastDeploy = deploys?.[0];
    return { ...record, defaultDomain, url: `https://${defaultDomain}/`, ...(lastDeploy ? { lastDeploy } : {}) };
  }
}
