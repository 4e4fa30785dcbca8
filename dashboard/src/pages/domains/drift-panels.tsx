import { CopyButton } from '../../components/CopyButton';
import { Notice } from '../../components/Notice';
import { Time } from '../../components/Time';
import type { DnsRecordInstruction, Domain, DomainMisconfiguration } from '../../types';
import { FAILURE, RecordsTable } from '../domain-parts';

interface MisconfigurationPanelProps {
  readonly domain: Domain;
  readonly misconfiguration: DomainMisconfiguration;
}

/**
 * A live domain whose DNS no longer points at its target (state dns_misconfigured): still served,
 * until when, what the check saw, and the fix. It becomes active again by itself at the next check.
 */
export function MisconfigurationPanel({ domain, misconfiguration }: MisconfigurationPanelProps) {
  const routing = domain.records.find((r) => r.purpose === 'routing');
  return (
    <section className="explain misconfiguration" aria-label={`DNS problem of ${domain.domain}`}>
      <Notice tone="warning" title={`The DNS of ${domain.domain} no longer points here`}>
        <p>
          {domain.domain} is still served until <strong><Time iso={misconfiguration.detachAt} /></strong>. If its DNS is
          not fixed by then, it is detached from this project: it stops serving and its certificate is released.
        </p>
        <p>{misconfiguration.detail}</p>
        {FAILURE[misconfiguration.reason].note ? <p>{FAILURE[misconfiguration.reason].note}</p> : null}
      </Notice>
      <dl className="facts observed">
        <div>
          <dt>What we found</dt>
          <dd>
            {misconfiguration.observed.length > 0
              ? <ul className="plain">{misconfiguration.observed.map((o) => <li key={o}><code>{o}</code></li>)}</ul>
              : <span>No record</span>}
          </dd>
        </div>
        <div>
          <dt>What we expect</dt>
          <dd><code>{routing?.type ?? 'CNAME'} {misconfiguration.expected}</code></dd>
        </div>
        <div>
          <dt>Found</dt>
          <dd>
            <Time iso={misconfiguration.since} /> <span className="hint">(last checked <Time iso={misconfiguration.checkedAt} />)</span>
          </dd>
        </div>
      </dl>
      <p className="hint">
        Fix the record as shown below. The domain becomes active again by itself at the next scheduled check, or at
        once when you press Re-verify.
      </p>
    </section>
  );
}

interface SwitchTargetNoticeProps {
  readonly domain: Domain;
  readonly switchTo: readonly DnsRecordInstruction[];
  readonly busy: boolean;
  readonly onReverify: () => void;
}

/**
 * A domain added before each domain had its own target still points at the shared host: the
 * platform suggests the switch (its own target, and a TXT record when one is needed), then Re-verify.
 */
export function SwitchTargetNotice({ domain, switchTo, busy, onReverify }: SwitchTargetNoticeProps) {
  const own = switchTo.find((r) => r.purpose === 'routing');
  return (
    <section className="switch-target" aria-label={`Switch ${domain.domain} to its own DNS target`}>
      <Notice tone="info" title="Give this domain its own DNS target">
        <p>
          {domain.domain} points at <code>{domain.target}</code>, the host every domain used to share. It keeps
          working, but a record to a shared host does not show that the domain is yours. Each domain now has its own
          target{own ? <>: <code className="record-value">{own.value}</code> <CopyButton value={own.value} label={`Copy the new target ${own.value}`} /></> : null}.
        </p>
        <p>Set {switchTo.length === 1 ? 'this record' : 'these records'} at your DNS provider, then press Re-verify:</p>
      </Notice>
      <RecordsTable domain={domain.domain} records={switchTo} caption={`New DNS records for ${domain.domain}`} />
      <p className="row">
        <button
          type="button"
          className="button secondary"
          disabled={busy}
          onClick={onReverify}
          aria-label={`Re-verify ${domain.domain} with its own target`}
        >
          {busy ? 'Starting…' : 'Re-verify with the new target'}
        </button>
        <span className="hint">Change the DNS first: a Re-verify checks the new records only.</span>
      </p>
    </section>
  );
}
