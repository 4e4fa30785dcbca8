import { useEffect, useId, useRef } from 'react';
import { ActionError, Badge, Time } from '../../components/parts';
import { MenuButton } from '../../components/MenuButton';
import { PlatformUrl } from '../../components/PlatformUrl';
import { useAction } from '../../flash';
import { useApp } from '../../context';
import type { Domain, DomainConfig, Project } from '../../types';
import {
  ANNOUNCEMENT, DiagnosisPanel, DomainStateBadge, FailureExplanation, IN_PROGRESS, isServing, MisconfigurationPanel,
  RecordsTable, VerifySteps,
} from '../domain-parts';
import { useDomainPolling } from './useDomainPolling';

/** States in which the owner acts next with Verify/Re-verify (the button beside the records). */
const NEEDS_VERIFY = new Set<Domain['state']>(['pending_dns', 'dns_failed', 'certificate_delayed', 'dns_misconfigured']);

const WORKING: Partial<Record<Domain['state'], string>> = {
  verifying: 'Checking the DNS records… this takes a few seconds.',
  issuing_certificate: 'DNS is verified. The SSL certificate is being issued, usually within a couple of minutes. Nothing to install.',
};

export function DomainCard({ project, domain, focus, onChange, onConfig, onRemove }: {
  readonly project: Project;
  readonly domain: Domain;
  readonly focus: boolean;
  readonly onChange: (domain: Domain) => void;
  readonly onConfig: (config: DomainConfig) => void;
  readonly onRemove: () => void;
}) {
  const { api, accountId } = useApp();
  const { busy, error, setError, run } = useAction();
  const primary = useAction();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const headingId = useId();

  useEffect(() => {
    if (focus) headingRef.current?.focus();
  }, [focus]);
  useDomainPolling(project.projectId, domain, onChange, setError);

  const verify = () =>
    run(async () => onChange(await api.verifyDomain(accountId, project.projectId, domain.domain, domain.attempt > 0)));

  const setPrimary = () =>
    primary.run(async () => onConfig(await api.setPrimary(accountId, project.projectId, domain.domain)));

  const isPrimary = project.domains.primary === domain.domain;
  const redirect = project.domains.redirects.find((r) => r.from === domain.domain);
  const redirectedFrom = project.domains.redirects.filter((r) => r.to === domain.domain);
  const running = IN_PROGRESS.has(domain.state);
  const verifyLabel = domain.attempt > 0 ? 'Re-verify' : 'Verify';
  const plural = domain.records.length === 1 ? 'this record' : 'these records';

  return (
    <li className={`card domain domain-${domain.state}`} aria-labelledby={headingId}>
      <div className="card-head">
        <div>
          <h3 id={headingId} ref={headingRef} tabIndex={-1} className="domain-name">{domain.domain}</h3>
          {domain.display !== domain.domain && <p className="hint">Entered as {domain.display}</p>}
        </div>
        <div className="domain-badges">
          <DomainStateBadge state={domain.state} />
          {isPrimary && <Badge tone="success">Primary</Badge>}
          {redirect && <Badge tone="neutral">Redirects to {redirect.to} ({redirect.status})</Badge>}
          <MenuButton
            label={`Actions for ${domain.domain}`}
            items={[
              ...(isServing(domain) && !isPrimary && !redirect ? [{ label: 'Set as primary', onSelect: () => void setPrimary() }] : []),
              ...(running ? [] : [{ label: verifyLabel, onSelect: () => void verify() }]),
              { label: 'Remove', danger: true, onSelect: onRemove },
            ]}
          />
        </div>
      </div>

      <p className="visually-hidden" role="status" aria-live="polite">{ANNOUNCEMENT[domain.state](domain)}</p>

      {domain.state !== 'pending_dns' && <VerifySteps domain={domain} />}

      {domain.state === 'pending_dns' && (
        <p>
          Set {plural} at your DNS provider, then press Verify. Most DNS changes resolve within minutes (up to 48
          hours).
        </p>
      )}
      {WORKING[domain.state] && <p>{WORKING[domain.state]}</p>}
      {domain.state === 'active' && (
        <>
          <p>
            <span aria-hidden="true">✓ </span>Live{domain.activeAt && <> since <Time iso={domain.activeAt} /></>}.
            {redirect ? ` Visitors are redirected to ${redirect.to}.` : ''}
            {redirectedFrom.length > 0 ? ` ${redirectedFrom.map((r) => r.from).join(', ')} redirect${redirectedFrom.length === 1 ? 's' : ''} here.` : ''}
          </p>
          <p className="domain-url">
            <PlatformUrl url={`https://${domain.domain}/`} label={`https://${domain.domain}`} />
          </p>
        </>
      )}
      {domain.state === 'dns_failed' && domain.failure && <FailureExplanation domain={domain} failure={domain.failure} />}
      {domain.state === 'dns_misconfigured' && domain.misconfiguration && (
        <MisconfigurationPanel domain={domain} misconfiguration={domain.misconfiguration} />
      )}
      {domain.state === 'certificate_delayed' && domain.diagnosis && <DiagnosisPanel domain={domain} diagnosis={domain.diagnosis} />}

      {domain.state === 'active'
        ? (
            <details>
              <summary>DNS {domain.records.length === 1 ? 'record' : 'records'}</summary>
              <RecordsTable domain={domain.domain} records={domain.records} />
            </details>
          )
        : <RecordsTable domain={domain.domain} records={domain.records} />}

      {NEEDS_VERIFY.has(domain.state) && (
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
          {domain.attempt > 0 && <span className="hint">Attempt {domain.attempt}</span>}
        </p>
      )}
      <ActionError error={error ?? primary.error} />
    </li>
  );
}
