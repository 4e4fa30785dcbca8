import { domainToASCII } from 'node:url';
import type { RuntimeConfig } from '../../contracts/plans.js';
import type { AccountStore } from '../keys/index.js';
import { deployPrefix, type ProjectRecord, type ProjectStore } from '../projects/index.js';
import { type Clock, nowIso } from '../shared/clock.js';
import { type DomainConfig, DomainConfigError, redirectStatus, removalWarning, validateDomainConfig } from './domain-config.js';
import { InvalidDomainError, normaliseDomain } from './domain-name.js';
import type { DomainRecord } from './domain-record.js';
import { pendingReleaseOf, takeOffProject } from './domain-removal.js';
import { domainView, type DomainView, recordsFor } from './domain-view.js';
import { randomToken, targetHost } from './ownership.js';
import type { DomainFlowStarter, DomainStore, EdgeRouter } from './ports.js';
import { refuse } from '../shared/problem.js';

export interface DomainServiceDeps {
  readonly accounts: AccountStore;
  readonly projects: ProjectStore;
  readonly domains: DomainStore;
  readonly edge: EdgeRouter;
  readonly flow: DomainFlowStarter;
  readonly clock: Clock;
  readonly config: RuntimeConfig;
  /** `edge.<platform domain>`: each domain's own target is `<token>.` under it. */
  readonly platformHost: string;
}

/** Names in configuration calls, normalised like added domains: trim, lower case, no trailing dot, IDN to punycode. */
const hostName = (input: string) => domainToASCII(input.trim().toLowerCase().replace(/\.$/, '')) || input.trim().toLowerCase();

/** Custom domains of a project (interface document, "Custom domain rules") and its domain configuration. */
export class DomainService {
  constructor(private readonly deps: DomainServiceDeps) {}

  async add(accountId: string, projectId: string, input: unknown) {
    const account = await this.deps.accounts.get(accountId);
    if (!account) throw refuse('account_not_found', `No account ${accountId}.`, 404);
    const project = await this.project(accountId, projectId);
    if (!this.deps.config.plans[account.plan].customDomains) {
      throw refuse(
        'plan_required',
        `Custom domains need the Pro plan or above; this account is on ${this.deps.config.plans[account.plan].displayName}. ` +
        `The project stays available at ${this.defaultDomain(project)}.`,
        403,
      );
    }
    if (!project.liveDeployId) {
      throw refuse(
        'project_not_deployed',
        'A domain can be added only after a successful deploy of the project. Deploy it first, then add the domain.',
        409,
      );
    }
    let name;
    try {
      name = normaliseDomain(typeof input === 'string' ? input : '', this.deps.config.platform.domain);
    } catch (error) {
      if (error instanceof InvalidDomainError) throw refuse('invalid_domain', error.message, 400);
      throw error;
    }
    const now = nowIso(this.deps.clock);
    // A fresh target and token for every claim: whatever an earlier holder left in DNS proves nothing.
    const target = targetHost(randomToken(), this.deps.platformHost);
    const claim = { accountId, target, ownershipToken: randomToken() };
    const records = await recordsFor(name, claim, this.deps.domains);
    const record: DomainRecord = {
      domain: name.name,
      display: name.display,
      projectId,
      accountId,
      apex: name.apex,
      state: 'pending_dns',
      records,
      target: claim.target,
      ownershipToken: claim.ownershipToken,
      attempt: 0,
      createdAt: now,
      updatedAt: now,
    };
    const holder = await this.deps.domains.claim(record);
    if (holder) throw refuse('domain_taken', await this.takenMessage(name.name, holder, accountId, projectId), 409);
    return { domain: domainView(record), records };
  }

  /** Names the holding project only when it is this account's. */
  private async takenMessage(domain: string, holder: Pick<DomainRecord, 'accountId' | 'projectId'>, accountId: string, projectId: string) {
    if (holder.projectId === projectId) return `${domain} is already a domain of this project: it is listed below.`;
    if (holder.accountId === accountId) {
      const other = await this.deps.projects.get(holder.projectId);
      const named = !other ? holder.projectId : other.name === other.slug ? other.slug : `${other.name} (${other.slug})`;
      return `${domain} is a domain of your project ${named}. A domain serves one project only: remove it there first to add it here.`;
    }
    return `${domain} is a domain of a project of another account. A domain serves one project only; if the name is yours, ask that account's owner to remove it.`;
  }

  async list(accountId: string, projectId: string): Promise<DomainView[]> {
    await this.project(accountId, projectId);
    const records = await this.deps.domains.listByProject(projectId);
    return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((record) => domainView(record));
  }

  async get(accountId: string, projectId: string, domain: string): Promise<DomainView> {
    return domainView(await this.domain(accountId, projectId, domain));
  }

  /** A fresh attempt of the whole flow; the records are worked out again (a TXT record may be needed now). */
  async verify(accountId: string, projectId: string, domain: string): Promise<DomainView> {
    const record = await this.domain(accountId, projectId, domain);
    const attempt = record.attempt + 1;
    const name = normaliseDomain(record.domain, this.deps.config.platform.domain);
    const records = await recordsFor(name, record, this.deps.domains);
    const changes = {
      state: 'verifying' as const,
      attempt,
      records,
      failure: undefined,
      diagnosis: undefined,
      updatedAt: nowIso(this.deps.clock),
    };
    if (!(await this.deps.domains.update(record.domain, changes, record.attempt))) {
      // Someone pressed Verify at the same moment: that attempt runs.
      return domainView(await this.domain(accountId, projectId, domain));
    }
    await this.deps.flow.start({ domain: record.domain, attempt });
    const { failure: _failure, diagnosis: _diagnosis, ...rest } = record;
    return domainView({ ...rest, ...changes });
  }

  /** Operators: starts a drift check of every live domain now (it also runs on a schedule). */
  async checkDrift(): Promise<{ execution: string; startedAt: string }> {
    const startedAt = nowIso(this.deps.clock);
    const { execution } = await this.deps.flow.checkDrift();
    return { execution, startedAt };
  }

  /** The edge refuses the domain first; the tenant's release (minutes) is handed to the flow. */
  async remove(accountId: string, projectId: string, domain: string) {
    const record = await this.domain(accountId, projectId, domain);
    const project = await this.project(accountId, projectId);
    const pointing = project.domains.redirects.filter((r) => r.to === record.domain);
    if (pointing.length > 0) {
      throw refuse(
        'domain_in_use',
        `${pointing.map((r) => r.from).join(', ')} redirect${pointing.length > 1 ? '' : 's'} to ${record.domain}; change or remove ` +
        'those redirects first.',
        409,
      );
    }
    const warning = removalWarning(record.domain, record.state, project.domains);
    await this.deps.edge.refuse(record.domain);
    const now = nowIso(this.deps.clock);
    // The record says removed before the release starts: the release keeps the tenant of a live claim.
    await this.deps.domains.update(record.domain, { state: 'removed', updatedAt: now, pendingRelease: pendingReleaseOf(record, now) });
    await takeOffProject({ ...this.deps, platformDomain: this.deps.config.platform.domain }, record, project, now);
    return { domain: record.domain, removed: true, ...(warning ? { warning } : {}) };
  }

  async setPrimary(accountId: string, projectId: string, domain: string): Promise<DomainConfig> {
    const project = await this.project(accountId, projectId);
    return this.applyConfig(project, { primary: hostName(domain), redirects: project.domains.redirects });
  }

  async addRedirect(accountId: string, projectId: string, input: { from?: unknown; to?: unknown; status?: unknown }) {
    const project = await this.project(accountId, projectId);
    const from = typeof input.from === 'string' ? hostName(input.from) : '';
    const to = typeof input.to === 'string' ? hostName(input.to) : '';
    if (!from || !to) throw refuse('invalid_config', 'A redirect needs "from" and "to" domains.', 400);
    let status;
    try {
      status = redirectStatus(input.status);
    } catch (error) {
      throw refuse('invalid_config', (error as Error).message, 400);
    }
    const redirects = [...project.domains.redirects.filter((r) => r.from !== from), { from, to, status }];
    return this.applyConfig(project, { primary: project.domains.primary, redirects });
  }

  async removeRedirect(accountId: string, projectId: string, from: string): Promise<DomainConfig> {
    const project = await this.project(accountId, projectId);
    const name = hostName(from);
    if (!project.domains.redirects.some((r) => r.from === name)) {
      throw refuse('domain_not_found', `${name} has no redirect.`, 404);
    }
    return this.applyConfig(project, {
      primary: project.domains.primary,
      redirects: project.domains.redirects.filter((r) => r.from !== name),
    });
  }

  /** Validates a whole configuration, stores it, then points the edge at it. */
  private async applyConfig(project: ProjectRecord, next: DomainConfig): Promise<DomainConfig> {
    const domains = await this.deps.domains.listByProject(project.projectId);
    try {
      validateDomainConfig(next, {
        defaultDomain: this.defaultDomain(project),
        // A misconfigured domain still serves during its grace period: it may stay primary or a redirect target.
        domains: domains.map((d) => ({ name: d.domain, state: d.state === 'dns_misconfigured' ? 'active' : d.state })),
      });
    } catch (error) {
      if (error instanceof DomainConfigError) throw refuse('invalid_config', error.message, 400);
      throw error;
    }
    await this.deps.projects.update(project.projectId, { domains: next });
    const redirecting = new Map(next.redirects.map((r) => [r.from, r]));
    const prefix = project.liveDeployId ? deployPrefix(project.projectId, project.liveDeployId) : undefined;
    for (const domain of domains.filter((d) => d.state === 'active' || d.state === 'dns_misconfigured')) {
      const redirect = redirecting.get(domain.domain);
      if (redirect) await this.deps.edge.redirect(domain.domain, redirect.to, redirect.status);
      else if (prefix) await this.deps.edge.serve(domain.domain, prefix);
    }
    return next;
  }

  private defaultDomain(project: ProjectRecord): string {
    return `${project.slug}.${this.deps.config.platform.domain}`;
  }

  private async project(accountId: string, projectId: string): Promise<ProjectRecord> {
    const project = await this.deps.projects.get(projectId);
    if (!project || project.accountId !== accountId) {
      throw refuse('project_not_found', `No project ${projectId} in account ${accountId}.`, 404);
    }
    return project;
  }

  private async domain(accountId: string, projectId: string, domain: string): Promise<DomainRecord> {
    await this.project(accountId, projectId);
    const record = await this.deps.domains.get(hostName(domain));
    if (!record || record.projectId !== projectId || record.state === 'removed') {
      throw refuse('domain_not_found', `${domain} is not a domain of project ${projectId}.`, 404);
    }
    return record;
  }
}
