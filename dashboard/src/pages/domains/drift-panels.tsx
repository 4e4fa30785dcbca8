import { Notice } from '../../components/Notice';
import { Time } from '../../components/Time';
import type { Domain, DomainMisconfiguration } from '../../types';
import { FAILURE } from '../domain-parts';

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
