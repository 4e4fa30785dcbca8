import { useEffect, useRef, useState } from 'react';
import { ActionError, Card, Form, Notice, Table } from '../../components/parts';
import { actionStarted, useNotice } from '../../flash';
import { useApp } from '../../context';
import {
  type Domain, type DomainConfig, type Project, REDIRECT_STATUSES, type RedirectStatus, type Schemas,
} from '../../types';
import { isServing } from '../domain-parts';

const STATUS_TEXT: Record<RedirectStatus, string> = {
  301: '301 Moved Permanently',
  302: '302 Found (temporary)',
  307: '307 Temporary Redirect',
  308: '308 Permanent Redirect',
};

export function DomainConfigSection({ project, domains, presetFrom, onPresetUsed, onConfig }: {
  readonly project: Project;
  readonly domains: readonly Domain[];
  readonly presetFrom: string | undefined;
  readonly onPresetUsed: () => void;
  readonly onConfig: (config: DomainConfig) => void;
}) {
  const { api, accountId } = useApp();
  const config = project.domains;
  const redirecting = new Set(config.redirects.map((r) => r.from));
  const servingDomains = domains.filter((d) => isServing(d) && !redirecting.has(d.domain)).map((d) => d.domain);
  const targets = [project.defaultDomain, ...servingDomains];
  const sources = domains.map((d) => d.domain).filter((d) => d !== config.primary);

  const [primary, setPrimary] = useState(config.primary);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [status, setStatus] = useState<RedirectStatus>(301);
  /** What the last change did or why it failed, shown where the owner acted (a removal's success below the redirects). */
  const [outcome, setOutcome] = useNotice<{ at: 'primary' | 'redirect' | 'remove'; text?: string; error?: unknown }>();
  /** The redirect an add would replace, once the owner has been asked to confirm it. */
  const [replacing, setReplacing] = useState<Schemas['Redirect']>();
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

  const change = async (at: 'primary' | 'redirect' | 'remove', call: () => Promise<DomainConfig>, text: string) => {
    actionStarted();
    try {
      onConfig(await call());
      setOutcome({ at, text });
    } catch (e) {
      setOutcome({ at, error: e });
    }
  };

  const addRedirect = () => {
    actionStarted();
    if (!fromValue || !toValue) {
      setOutcome({ at: 'redirect', error: 'Choose the domain to redirect and where it goes.' });
      return;
    }
    // One redirect per domain: adding one for a domain that already redirects replaces it, so ask first.
    const existing = config.redirects.find((r) => r.from === fromValue);
    if (existing && replacing?.from !== existing.from) {
      setReplacing(existing);
      return;
    }
    setReplacing(undefined);
    const fromDomain = domains.find((d) => d.domain === fromValue);
    void change(
      'redirect',
      () => api.addRedirect(accountId, project.projectId, { from: fromValue, to: toValue, status }),
      `${fromValue} now redirects to ${toValue} (${status})` +
      (existing ? `, instead of ${existing.to} (${existing.status}).` : '.') +
      (fromDomain && !isServing(fromDomain) ? ` It applies once ${fromValue} is active.` : ''),
    );
  };

  return (
    <Card title="Domain configuration">
      <Form
        className="inline-form"
        onSubmit={() => change('primary', () => api.setPrimary(accountId, project.projectId, primary), `${primary} is now the primary domain.`)}
      >
        <div className="field grow">
          <label htmlFor="primary-domain">Primary domain</label>
          <select id="primary-domain" value={primary} onChange={(e) => setPrimary(e.target.value)}>
            {targets.map((t) => <option key={t} value={t}>{t}{t === project.defaultDomain ? ' (default)' : ''}</option>)}
          </select>
          <p className="hint">The default domain or an active custom domain that does not redirect.</p>
        </div>
        <button type="submit" className="button secondary" disabled={primary === config.primary}>Set primary</button>
      </Form>
      <ActionError error={outcome?.at === 'primary' ? outcome.error : undefined} />
      <p role="status" className="status-line">{outcome?.at === 'primary' ? outcome.text : null}</p>

      <h3>Redirects</h3>
      {config.redirects.length === 0
        ? <p className="empty">No redirects.</p>
        : (
            <Table
              caption="Redirects"
              hideCaption
              rows={config.redirects}
              rowKey={(r) => r.from}
              columns={[
                { label: 'From', cell: (r) => r.from },
                { label: 'To', cell: (r) => <><span aria-hidden="true">→ </span>{r.to}</> },
                { label: 'Status', cell: (r) => STATUS_TEXT[r.status] },
              ]}
              actions={(r) => (
                <button
                  type="button"
                  className="button small danger-outline"
                  aria-label={`Remove the redirect from ${r.from}`}
                  onClick={() => void change(
                    'remove',
                    () => api.removeRedirect(accountId, project.projectId, r.from),
                    `The redirect from ${r.from} is removed.`,
                  )}
                >
                  Remove
                </button>
              )}
            />
          )}
      <ActionError error={outcome?.at === 'remove' ? outcome.error : undefined} />

      {sources.length === 0
        ? <p className="hint">Add a custom domain to redirect it.</p>
        : (
            <Form className="redirect-form" onSubmit={addRedirect} aria-labelledby="redirect-form-heading">
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
              {replacing && replacing.from === fromValue && (
                <Notice tone="warning" title={`${replacing.from} already redirects to ${replacing.to} (${replacing.status}).`}>
                  <p>
                    A domain has one redirect. Replace it with {toValue} ({status})? Visitors are sent to the new
                    target from the next request.
                  </p>
                </Notice>
              )}
              <div className="row">
                <button type="submit" className="button secondary">
                  {replacing && replacing.from === fromValue ? 'Replace redirect' : 'Add redirect'}
                </button>
                {replacing && replacing.from === fromValue && (
                  <button type="button" className="button secondary" onClick={() => setReplacing(undefined)}>
                    Keep the current redirect
                  </button>
                )}
              </div>
              <ActionError error={outcome?.at === 'redirect' ? outcome.error : undefined} />
            </Form>
          )}
      <p role="status" className="status-line">{outcome?.at === 'primary' ? null : outcome?.text}</p>
    </Card>
  );
}
