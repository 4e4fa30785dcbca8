import { REDIRECT_STATUSES, type Redirect, type RedirectStatus } from '../../contracts/domains.js';

/** Project domain configuration (interface document, "Project domain configuration"). */
export interface DomainConfig {
  /** An active custom domain of the project, or its default subdomain. */
  readonly primary: string;
  readonly redirects: readonly Redirect[];
}

export type DomainConfigProblem =
  | 'unknown_domain' |
  'domain_not_active' |
  'self_redirect' |
  'duplicate_redirect' |
  'redirect_chain' |
  'redirect_loop' |
  'invalid_status' |
  'primary_redirects';

export class DomainConfigError extends Error {
  constructor(readonly problem: DomainConfigProblem, message: string) {
    super(message);
    this.name = 'DomainConfigError';
  }
}

interface ProjectDomains {
  /** Always serving. */
  readonly defaultDomain: string;
  readonly domains: ReadonlyArray<{ readonly name: string; readonly state: string }>;
}

/** Parses a redirect status, 301 when absent. */
export function redirectStatus(value: unknown): RedirectStatus {
  if (value === undefined || value === null) return 301;
  if (typeof value === 'number' && (REDIRECT_STATUSES as readonly number[]).includes(value)) return value as RedirectStatus;
  throw new DomainConfigError('invalid_status', `status must be one of ${REDIRECT_STATUSES.join(', ')} (301 when omitted).`);
}

/** Checks a whole configuration: one-hop redirects (no chains, no loops) within the project; the primary serves. */
export function validateDomainConfig(config: DomainConfig, project: ProjectDomains): void {
  const states = new Map<string, string>([[project.defaultDomain, 'active'], ...project.domains.map((d) => [d.name, d.state] as const)]);
  const known = (name: string, role: string) => {
    if (!states.has(name)) throw new DomainConfigError('unknown_domain', `${role} ${name} is not a domain of this project.`);
  };

  known(config.primary, 'The primary domain');
  if (states.get(config.primary) !== 'active') {
    throw new DomainConfigError('domain_not_active', `The primary domain ${config.primary} must be active before it can be primary.`);
  }

  const sources = new Map<string, Redirect>();
  for (const redirect of config.redirects) {
    if (redirect.from === project.defaultDomain) {
      throw new DomainConfigError('unknown_domain', `${project.defaultDomain} always serves the project; only custom domains redirect.`);
    }
    known(redirect.from, 'Redirect source');
    known(redirect.to, 'Redirect target');
    if (states.get(redirect.to) !== 'active') {
      throw new DomainConfigError('domain_not_active', `Redirect target ${redirect.to} must be active (serving) first.`);
    }
    redirectStatus(redirect.status);
    if (redirect.from === redirect.to) throw new DomainConfigError('self_redirect', `${redirect.from} cannot redirect to itself.`);
    if (sources.has(redirect.from)) {
      throw new DomainConfigError('duplicate_redirect', `${redirect.from} already redirects to ${sources.get(redirect.from)?.to}.`);
    }
    sources.set(redirect.from, redirect);
  }
  if (sources.has(config.primary)) {
    throw new DomainConfigError('primary_redirects', `The primary domain ${config.primary} cannot redirect elsewhere.`);
  }
  for (const redirect of config.redirects) {
    const next = sources.get(redirect.to);
    if (!next) continue;
    if (next.to === redirect.from || walksBack(redirect.from, redirect.to, sources)) {
      throw new DomainConfigError('redirect_loop', `Redirects ${redirect.from} → ${redirect.to} → … → ${redirect.from} form a loop.`);
    }
    throw new DomainConfigError(
      'redirect_chain',
      `${redirect.from} redirects to ${redirect.to}, which itself redirects to ${next.to}. Point ${redirect.from} at ${next.to} directly: redirects are served in one hop.`,
    );
  }
}

function walksBack(start: string, from: string, sources: ReadonlyMap<string, Redirect>): boolean {
  const seen = new Set<string>();
  let current: string | undefined = from;
  while (current !== undefined && !seen.has(current)) {
    if (current === start) return true;
    seen.add(current);
    current = sources.get(current)?.to;
  }
  return false;
}

/** A removed domain stops serving at once: a warning when it was active with no redirect from it. */
export function removalWarning(name: string, state: string, config: DomainConfig | undefined): string | undefined {
  if (state !== 'active') return undefined;
  if (config?.redirects.some((r) => r.from === name)) return undefined;
  return `${name} is live and has no redirect: links to it will stop working at once. Set up a redirect from ${name} first if its URL was shared.`;
}
