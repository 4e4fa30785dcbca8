import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import { ApiError, errorMessage } from '../api';
import { Badge } from '../components/Badge';
import { Dialog } from '../components/Dialog';
import { MenuButton } from '../components/MenuButton';
import { ActionError, Loading, Notice } from '../components/Notice';
import { PageHeading } from '../components/PageHeading';
import { Time } from '../components/Time';
import { useAction } from '../components/useAction';
import { useAsync } from '../components/useAsync';
import { planName, useApp } from '../context';
import { href } from '../router';
import { type Domain, type DomainConfig, type Project, REDIRECT_STATUSES, type RedirectStatus } from '../types';
import {
  DiagnosisPanel, DomainStateBadge, FailureExplanation, IN_PROGRESS, RecordsTable, VerifySteps, stateAnnouncement,
} from './domain-parts';
import { ProjectNav } from './project-parts';

const POLL_MS = 1000;

export function DomainsPage({ projectId }: { readonly projectId: string }) {
  const { api, me, plans } = useApp();
  const accountId = me.account.accountId;
  const project = useAsync(() => api.project(accountId, projectId), [api, accountId, projectId]);
  const plan = plans.find((p) => p.id === me.account.plan);
  const allowed = plan?.customDomains ?? false;
  const domains = useAsync(
    () => (allowed ? api.domains(accountId, projectId) : Promise.resolve([])),
    [api, accountId, projectId, allowed],
  );
  const [pageNotice, setPageNotice] = useState<{ tone: 'success' | 'warning'; text: string }>();
  const [redirectFrom, setRedirectFrom] = useState<string>();
  const [removing, setRemoving] = useState<Domain>();
  const [focusDomain, setFocusDomain] = useState<string>();
  /** What to do once the remove dialog has closed and given focus back (then focus can move on). */
  const afterDialog = useRef<(() => void) | undefined>(undefined);

  const setProject = project.setData;
  const setDomains = domains.setData;
  const setConfig = useCallback(
    (config: DomainConfig) => setProject((p) => (p ? { ...p, domains: config } : p)),
    [setProject],
  );
  const replaceDomain = useCallback(
    (updated: Domain) => setDomains((list) => list?.map((d) => (d.domain === updated.domain ? updated : d))),
    [setDomains],
  );

  if (!project.data) {
    return (
      <>
        <PageHeading title="Domains" />
        {project.error ? <Notice tone="error">{project.error}</Notice> : <Loading label="Loading the project…" />}
        <p><a href={href.projects}>Back to projects</a></p>
      </>
    );
  }
  const p = project.data;
  const deployed = p.liveDeployId !== undefined;
  const list = domains.data ?? [];

  return (
    <>
      <ProjectNav project={p} current="domains" />
      <PageHeading title={`${p.name}: domains`}>
        <p className="lead">Serve {p.name} at your own domains, with certificates issued and renewed for you.</p>
      </PageHeading>

      <DefaultDomainCard project={p} />

      {!allowed
        ? (
            <section className="card upgrade" aria-labelledby="upgrade-heading">
              <h2 id="upgrade-heading">Custom domains need the Pro plan or above</h2>
              <p>
                Your account is on the {planName(plans, me.account.plan)} plan, which does not include custom domains.
                {' '}{p.name} stays available at <strong>{p.defaultDomain}</strong>.
              </p>
              <p>
                Plans with custom domains:{' '}
                {plans.filter((x) => x.customDomains).map((x) => x.displayName).join(', ')}.
                {' '}<a href={href.usage}>Compare plans</a>
              </p>
            </section>
          )
        : (
            <>
              {/* A live region that is always there, so its messages are announced. */}
              <div role="status">{pageNotice ? <Notice tone={pageNotice.tone}>{pageNotice.text}</Notice> : null}</div>
              {deployed
                ? (
                    <AddDomainForm
                      project={p}
                      addedPending={list.some((d) => d.domain === focusDomain && d.state === 'pending_dns')}
                      onAdded={(domain) => {
                        setDomains((current) => [...(current ?? []).filter((d) => d.domain !== domain.domain), domain]);
                        setFocusDomain(domain.domain);
                        setPageNotice(undefined);
                      }}
                    />
                  )
                : (
                    <Notice tone="info" title="Deploy the project first">
                      <p>
                        A domain can be added only after a successful deploy of the project. Once it is live at{' '}
                        {p.defaultDomain}, come back to add your domains.
                      </p>
                    </Notice>
                  )}

              <section aria-labelledby="domains-heading" className="domain-section">
                <div className="section-head">
                  <h2 id="domains-heading" tabIndex={-1}>Custom domains</h2>
                  <button type="button" className="button small secondary" onClick={() => void domains.reload()}>Refresh</button>
                </div>
                {domains.error ? <Notice tone="error">{domains.error}</Notice> : null}
                {!domains.data && domains.loading ? <Loading label="Loading domains…" /> : null}
                {domains.data && list.length === 0 ? <p className="empty card">No custom domains yet.</p> : null}
                <ul className="domain-list">
                  {list.map((domain) => (
                    <DomainCard
                      key={domain.domain}
                      project={p}
                      domain={domain}
                      focus={focusDomain === domain.domain}
                      onChange={replaceDomain}
                      onConfig={setConfig}
                      onRemove={() => setRemoving(domain)}
                    />
                  ))}
                </ul>
              </section>

              <DomainConfigSection
                project={p}
                domains={list}
                presetFrom={redirectFrom}
                onPresetUsed={() => setRedirectFrom(undefined)}
                onConfig={setConfig}
              />

              <RemoveDialog
                project={p}
                domain={removing}
                onClose={() => setRemoving(undefined)}
                onRedirectFirst={(name) => {
                  afterDialog.current = () => setRedirectFrom(name);
                  setRemoving(undefined);
                }}
                onClosed={() => {
                  afterDialog.current?.();
                  afterDialog.current = undefined;
                }}
                onRemoved={(name, warning) => {
                  afterDialog.current = () => document.getElementById('domains-heading')?.focus();
                  setRemoving(undefined);
                  domains.setData((current) => current?.filter((d) => d.domain !== name));
                  void project.reload();
                  setPageNotice({
                    tone: warning ? 'warning' : 'success',
                    text: `${name} was removed and no longer serves traffic.${warning ? ` ${warning}` : ''}`,
                  });
                }}
              />
            </>
          )}
    </>
  );
}

function DefaultDomainCard({ project }: { readonly project: Project }) {
  const primary = project.domains.primary === project.defaultDomain;
  return (
    <section className="card" aria-labelledby="default-domain-heading">
      <div className="card-head">
        <h2 id="default-domain-heading">Default domain</h2>
        {primary ? <Badge tone="success">Primary</Badge> : null}
      </div>
      <p>
        {project.liveDeployId
          ? <a href={project.url} target="_blank" rel="noreferrer">{project.defaultDomain}</a>
          : <>{project.defaultDomain} <span className="muted">(served after the first successful deploy)</span></>}
      </p>
      <p className="hint">Always available; it cannot be removed.</p>
    </section>
  );
}

interface AddDomainFormProps {
  readonly project: Project;
  /** Whether the domain added last still waits for its DNS record (its hint stays until then). */
  readonly addedPending: boolean;
  readonly onAdded: (domain: Domain) => void;
}

function AddDomainForm({ project, addedPending, onAdded }: AddDomainFormProps) {
  const { api, me } = useApp();
  const [input, setInput] = useState('');
  const { busy, error, setError, run } = useAction(addError);
  const [added, setAdded] = useState<{ typed: string; domain: Domain }>();
  const errorId = useId();
  const hintId = useId();

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!input.trim()) {
      setError('Enter a domain, e.g. www.example.com.');
      return;
    }
    await run(async () => {
      const result = await api.addDomain(me.account.accountId, project.projectId, input);
      setAdded({ typed: input.trim(), domain: result.domain });
      setInput('');
      onAdded(result.domain);
    });
  };

  return (
    <section className="card" aria-labelledby="add-domain-heading">
      <h2 id="add-domain-heading">Add domain</h2>
      <form className="inline-form" onSubmit={(e) => void onSubmit(e)} noValidate>
        <div className="field grow">
          <label htmlFor="add-domain-input">Domain</label>
          <input
            id="add-domain-input"
            value={input}
            inputMode="url"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            placeholder="www.example.com"
            onChange={(e) => setInput(e.target.value)}
            aria-describedby={`${hintId}${error ? ` ${errorId}` : ''}`}
            aria-invalid={error ? true : undefined}
          />
          <p className="hint" id={hintId}>
            A subdomain such as www.example.com (CNAME record) or an apex domain such as example.com (ALIAS/ANAME
            record).
          </p>
        </div>
        <button type="submit" className="button primary" disabled={busy}>{busy ? 'Adding…' : 'Add domain'}</button>
      </form>
      <ActionError message={error} id={errorId} />
      <p role="status" className="status-line">
        {added && addedPending
          ? (
              <>
                <span aria-hidden="true">✓ </span>Added <strong>{added.domain.domain}</strong>
                {added.typed !== added.domain.domain
                  ? <> (you entered “{added.typed}”; this is its normalised name)</>
                  : null}.
                {' '}Set the DNS record shown below, then press Verify.
              </>
            )
          : null}
      </p>
    </section>
  );
}

function addError(error: unknown): string {
  const message = errorMessage(error);
  if (!(error instanceof ApiError)) return message;
  switch (error.code) {
    case 'domain_taken':
      return `${message} Remove it from the other project first.`;
    default:
      return message;
  }
}

function DomainCard({
  project,
  domain,
  focus,
  onChange,
  onConfig,
  onRemove,
}: {
  readonly project: Project;
  readonly domain: Domain;
  readonly focus: boolean;
  readonly onChange: (domain: Domain) => void;
  readonly onConfig: (config: DomainConfig) => void;
  readonly onRemove: () => void;
}) {
  const { api, me } = useApp();
  const accountId = me.account.accountId;
  const { busy, error, setError, run } = useAction();
  const [pollTick, setPollTick] = useState(0);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const headingId = useId();

  useEffect(() => {
    if (focus) headingRef.current?.focus();
  }, [focus]);

  // Live progress: poll the domain while the flow runs.
  useEffect(() => {
    if (!IN_PROGRESS.has(domain.state)) return;
    let cancelled = false;
    const timer = window.setTimeout(() => {
      api.domain(accountId, project.projectId, domain.domain).then(
        (next) => {
          if (cancelled) return;
          setError(undefined);
          onChange(next);
        },
        (e: unknown) => {
          if (cancelled) return;
          setError(`Could not refresh the status: ${errorMessage(e)} Retrying…`);
          window.setTimeout(() => !cancelled && setPollTick((t) => t + 1), POLL_MS * 3);
        },
      );
    }, POLL_MS);
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
    };
  }, [api, accountId, project.projectId, domain, onChange, pollTick]);

  const verify = () =>
    run(async () => onChange(await api.verifyDomain(accountId, project.projectId, domain.domain, domain.attempt > 0)));

  const setPrimary = async () => {
    setError(undefined);
    try {
      onConfig(await api.setPrimary(accountId, project.projectId, domain.domain));
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  const isPrimary = project.domains.primary === domain.domain;
  const redirect = project.domains.redirects.find((r) => r.from === domain.domain);
  const redirectedFrom = project.domains.redirects.filter((r) => r.to === domain.domain);
  const running = IN_PROGRESS.has(domain.state);
  const verifyLabel = domain.attempt > 0 ? 'Re-verify' : 'Verify';

  return (
    <li className={`card domain domain-${domain.state}`} aria-labelledby={headingId}>
      <div className="card-head">
        <div>
          <h3 id={headingId} ref={headingRef} tabIndex={-1} className="domain-name">{domain.domain}</h3>
          {domain.display !== domain.domain ? <p className="hint">Entered as {domain.display}</p> : null}
        </div>
        <div className="domain-badges">
          <DomainStateBadge state={domain.state} />
          {isPrimary ? <Badge tone="success">Primary</Badge> : null}
          {redirect ? <Badge tone="neutral">Redirects to {redirect.to} ({redirect.status})</Badge> : null}
          <MenuButton
            label={`Actions for ${domain.domain}`}
            items={[
              ...(domain.state === 'active' && !isPrimary && !redirect
                ? [{ label: 'Set as primary', onSelect: () => void setPrimary() }]
                : []),
              ...(running ? [] : [{ label: verifyLabel, onSelect: () => void verify() }]),
              { label: 'Remove', danger: true, onSelect: onRemove },
            ]}
          />
        </div>
      </div>

      <p className="visually-hidden" role="status" aria-live="polite">{stateAnnouncement(domain)}</p>

      {domain.state !== 'pending_dns' ? <VerifySteps domain={domain} /> : null}

      {domain.state === 'pending_dns'
        ? (
            <p>
              Set this record at your DNS provider, then press Verify. Most DNS changes resolve within minutes (up to 48
              hours).
            </p>
          )
        : null}
      {domain.state === 'verifying' ? <p>Checking the DNS record… this takes a few seconds.</p> : null}
      {domain.state === 'issuing_certificate'
        ? (
            <p>
              DNS is verified. The SSL certificate is being issued, usually within a couple of minutes. Nothing to
              install.
            </p>
          )
        : null}
      {domain.state === 'active'
        ? (
            <p>
              <span aria-hidden="true">✓ </span>Live at{' '}
              <a href={`https://${domain.domain}/`} target="_blank" rel="noreferrer">https://{domain.domain}</a>
              {domain.activeAt ? <> since <Time iso={domain.activeAt} /></> : null}.
              {redirect ? ` Visitors are redirected to ${redirect.to}.` : ''}
              {redirectedFrom.length > 0 ? ` ${redirectedFrom.map((r) => r.from).join(', ')} redirect${redirectedFrom.length === 1 ? 's' : ''} here.` : ''}
            </p>
          )
        : null}
      {domain.state === 'dns_failed' && domain.failure ? <FailureExplanation domain={domain} failure={domain.failure} /> : null}
      {domain.state === 'certificate_delayed' && domain.diagnosis ? <DiagnosisPanel domain={domain} diagnosis={domain.diagnosis} /> : null}

      {domain.state === 'active'
        ? (
            <details>
              <summary>DNS record</summary>
              <RecordsTable domain={domain.domain} records={domain.records} />
            </details>
          )
        : <RecordsTable domain={domain.domain} records={domain.records} />}

      {domain.state === 'pending_dns' || domain.state === 'dns_failed' || domain.state === 'certificate_delayed'
        ? (
            <p className="row">
              <button
                type="button"
                className="button primary"
                disabled={busy}
                onClick={() => void verify()}
                aria-label={`${verifyLabel} ${domain.domain}`}
              >
                {busy ? 'Starting…' : verifyLabel}
              </button>
              {domain.attempt > 0 ? <span className="hint">Attempt {domain.attempt}</span> : null}
            </p>
          )
        : null}
      <ActionError message={error} />
    </li>
  );
}

const STATUS_TEXT: Record<RedirectStatus, string> = {
  301: '301 Moved Permanently',
  302: '302 Found (temporary)',
  307: '307 Temporary Redirect',
  308: '308 Permanent Redirect',
};

function DomainConfigSection({
  project,
  domains,
  presetFrom,
  onPresetUsed,
  onConfig,
}: {
  readonly project: Project;
  readonly domains: readonly Domain[];
  readonly presetFrom: string | undefined;
  readonly onPresetUsed: () => void;
  readonly onConfig: (config: DomainConfig) => void;
}) {
  const { api, me } = useApp();
  const accountId = me.account.accountId;
  const config = project.domains;
  const redirecting = new Set(config.redirects.map((r) => r.from));
  const targets = [project.defaultDomain, ...domains.filter((d) => d.state === 'active' && !redirecting.has(d.domain)).map((d) => d.domain)];
  const sources = domains.map((d) => d.domain).filter((d) => d !== config.primary);

  const [primary, setPrimary] = useState(config.primary);
  const [primaryError, setPrimaryError] = useState<string>();
  const [primaryDone, setPrimaryDone] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [status, setStatus] = useState<RedirectStatus>(301);
  const [redirectError, setRedirectError] = useState<string>();
  const [redirectDone, setRedirectDone] = useState('');
  const [removeError, setRemoveError] = useState<string>();
  const fromRef = useRef<HTMLSelectElement>(null);

  useEffect(() => setPrimary(config.primary), [config.primary]);
  useEffect(() => {
    if (!presetFrom) return;
    setFrom(presetFrom);
    fromRef.current?.focus();
    fromRef.current?.scrollIntoView({ block: 'center' });
    onPresetUsed();
  }, [presetFrom, onPresetUsed]);

  const fromValue = sources.includes(from) ? from : (sources[0] ?? '');
  const toChoices = targets.filter((t) => t !== fromValue);
  const toValue = toChoices.includes(to) ? to : (toChoices[0] ?? '');

  const savePrimary = async (event: FormEvent) => {
    event.preventDefault();
    setPrimaryError(undefined);
    setPrimaryDone('');
    try {
      onConfig(await api.setPrimary(accountId, project.projectId, primary));
      setPrimaryDone(`${primary} is now the primary domain.`);
    } catch (e) {
      setPrimaryError(errorMessage(e));
    }
  };

  const addRedirect = async (event: FormEvent) => {
    event.preventDefault();
    setRedirectError(undefined);
    setRedirectDone('');
    if (!fromValue || !toValue) {
      setRedirectError('Choose the domain to redirect and where it goes.');
      return;
    }
    try {
      onConfig(await api.addRedirect(accountId, project.projectId, { from: fromValue, to: toValue, status }));
      const fromDomain = domains.find((d) => d.domain === fromValue);
      setRedirectDone(
        `${fromValue} now redirects to ${toValue} (${status}).` +
        (fromDomain && fromDomain.state !== 'active' ? ` It applies once ${fromValue} is active.` : ''),
      );
    } catch (e) {
      setRedirectError(errorMessage(e));
    }
  };

  const removeRedirect = async (source: string) => {
    setRemoveError(undefined);
    setRedirectDone('');
    try {
      onConfig(await api.removeRedirect(accountId, project.projectId, source));
      setRedirectDone(`The redirect from ${source} is removed.`);
    } catch (e) {
      setRemoveError(errorMessage(e));
    }
  };

  return (
    <section className="card" aria-labelledby="config-heading">
      <h2 id="config-heading">Domain configuration</h2>

      <form className="inline-form" onSubmit={(e) => void savePrimary(e)}>
        <div className="field grow">
          <label htmlFor="primary-domain">Primary domain</label>
          <select id="primary-domain" value={primary} onChange={(e) => setPrimary(e.target.value)}>
            {targets.map((t) => <option key={t} value={t}>{t}{t === project.defaultDomain ? ' (default)' : ''}</option>)}
          </select>
          <p className="hint">The default domain or an active custom domain that does not redirect.</p>
        </div>
        <button type="submit" className="button secondary" disabled={primary === config.primary}>Set primary</button>
      </form>
      <ActionError message={primaryError} />
      <p role="status" className="status-line">{primaryDone}</p>

      <h3>Redirects</h3>
      {config.redirects.length === 0
        ? <p className="empty">No redirects.</p>
        : (
            <table className="table responsive">
              <caption className="visually-hidden">Redirects</caption>
              <thead>
                <tr>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col">Status</th>
                  <th scope="col"><span className="visually-hidden">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {config.redirects.map((r) => (
                  <tr key={r.from}>
                    <td data-label="From">{r.from}</td>
                    <td data-label="To"><span aria-hidden="true">→ </span>{r.to}</td>
                    <td data-label="Status">{STATUS_TEXT[r.status]}</td>
                    <td data-label="Actions" className="actions">
                      <button
                        type="button"
                        className="button small danger-outline"
                        aria-label={`Remove the redirect from ${r.from}`}
                        onClick={() => void removeRedirect(r.from)}
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
      <ActionError message={removeError} />

      {sources.length === 0
        ? <p className="hint">Add a custom domain to redirect it.</p>
        : (
            <form className="redirect-form" onSubmit={(e) => void addRedirect(e)} aria-labelledby="redirect-form-heading">
              <h4 id="redirect-form-heading">Add a redirect</h4>
              <div className="grid3">
                <div className="field">
                  <label htmlFor="redirect-from">From</label>
                  <select id="redirect-from" ref={fromRef} value={fromValue} onChange={(e) => setFrom(e.target.value)}>
                    {sources.map((s) => <option key={s} value={s}>{s}</option>)}
                  </select>
                </div>
                <div className="field">
                  <label htmlFor="redirect-to">To</label>
                  <select id="redirect-to" value={toValue} onChange={(e) => setTo(e.target.value)}>
                    {toChoices.map((t) => <option key={t} value={t}>{t}</option>)}
                  </select>
                </div>
                <div className="field">
                  <label htmlFor="redirect-status">Status</label>
                  <select id="redirect-status" value={status} onChange={(e) => setStatus(Number(e.target.value) as RedirectStatus)}>
                    {REDIRECT_STATUSES.map((s) => <option key={s} value={s}>{STATUS_TEXT[s]}</option>)}
                  </select>
                </div>
              </div>
              <p className="hint">Visitors keep their path and query. A redirect is served in one hop: it must point to an active domain that does not redirect itself.</p>
              <button type="submit" className="button secondary">Add redirect</button>
              <ActionError message={redirectError} />
            </form>
          )}
      <p role="status" className="status-line">{redirectDone}</p>
    </section>
  );
}

function RemoveDialog({
  project,
  domain,
  onClose,
  onRedirectFirst,
  onClosed,
  onRemoved,
}: {
  readonly project: Project;
  readonly domain: Domain | undefined;
  readonly onClose: () => void;
  readonly onRedirectFirst: (domain: string) => void;
  readonly onClosed: () => void;
  readonly onRemoved: (domain: string, warning: string | undefined) => void;
}) {
  const { api, me } = useApp();
  const { busy, error, setError, run } = useAction();
  const name = domain?.domain ?? '';
  const redirect = project.domains.redirects.find((r) => r.from === name);
  const pointing = project.domains.redirects.filter((r) => r.to === name);
  const live = domain?.state === 'active';
  const close = () => {
    setError(undefined);
    onClose();
  };
  const remove = async () => {
    if (!domain) return;
    await run(async () => {
      const result = await api.removeDomain(me.account.accountId, project.projectId, domain.domain);
      onRemoved(result.domain, result.warning);
    });
  };
  return (
    <Dialog
      open={domain !== undefined}
      title={`Remove ${name}?`}
      onClose={close}
      onClosed={onClosed}
      footer={(
        <>
          <button type="button" className="button secondary" onClick={close} autoFocus>Cancel</button>
          {live && !redirect && pointing.length === 0 && project.domains.primary !== name
            ? <button type="button" className="button secondary" onClick={() => onRedirectFirst(name)}>Set up a redirect first</button>
            : null}
          <button type="button" className="button danger" disabled={busy || pointing.length > 0} onClick={() => void remove()}>
            {busy ? 'Removing…' : 'Remove domain'}
          </button>
        </>
      )}
    >
      {domain
        ? (
            <>
              <p>
                <strong>{name} stops serving traffic immediately.</strong> Requests to it are refused from the next one
                on, and its certificate is released.
              </p>
              {pointing.length > 0
                ? (
                    <Notice tone="error" title="Other domains redirect here">
                      <p>
                        {pointing.map((r) => r.from).join(', ')} redirect{pointing.length === 1 ? 's' : ''} to {name}.
                        Change or remove {pointing.length === 1 ? 'that redirect' : 'those redirects'} first.
                      </p>
                    </Notice>
                  )
                : null}
              {live && !redirect
                ? (
                    <Notice tone="warning" title="No redirect is set up">
                      <p>
                        Links to {name} will stop working. If its URL was shared, set up a redirect from {name} to
                        another domain first.
                      </p>
                    </Notice>
                  )
                : null}
              {redirect ? <p>Its redirect to {redirect.to} is removed too.</p> : null}
              {project.domains.primary === name
                ? <p>It is the primary domain: {project.defaultDomain} becomes primary.</p>
                : null}
              <p className="hint">You can add the domain again later.</p>
              <ActionError message={error} />
            </>
          )
        : null}
    </Dialog>
  );
}
