import { type ReactNode } from 'react';
import { Badge, type BadgeTone, CopyButton, Notice, Time } from '../components/parts';
import { formatDateTime } from '../format';
import type { Domain, Schemas } from '../types';

type DomainState = Domain['state'];

export const IN_PROGRESS: ReadonlySet<DomainState> = new Set(['verifying', 'issuing_certificate']);
/** Served: active, or misconfigured but within its grace period (removing it breaks its links all the same). */
export const isServing = (domain: Pick<Domain, 'state'> | undefined) =>
  domain?.state === 'active' || domain?.state === 'dns_misconfigured';

const STATE: Record<DomainState, { tone: BadgeTone; text: string }> = {
  pending_dns: { tone: 'neutral', text: 'Waiting for DNS' },
  verifying: { tone: 'progress', text: 'Verifying DNS' },
  dns_failed: { tone: 'error', text: 'DNS check failed' },
  issuing_certificate: { tone: 'progress', text: 'Issuing certificate' },
  active: { tone: 'success', text: 'Active' },
  dns_misconfigured: { tone: 'warning', text: 'DNS misconfigured' },
  certificate_delayed: { tone: 'warning', text: 'Certificate delayed' },
  removed: { tone: 'neutral', text: 'Removed' },
};

export function DomainStateBadge({ state }: { readonly state: DomainState }) {
  return <Badge tone={STATE[state].tone}>{STATE[state].text}</Badge>;
}

/** One sentence for the live region, by state: what is happening to the domain now. */
export const ANNOUNCEMENT: Record<DomainState, (domain: Domain) => string> = {
  pending_dns: (d) => `${d.domain}: set the DNS record, then press Verify.`,
  verifying: (d) => `${d.domain}: checking DNS…`,
  dns_failed: (d) => `${d.domain}: the DNS check failed. ${d.failure ? FAILURE[d.failure.reason].title : ''}.`,
  issuing_certificate: (d) => `${d.domain}: DNS verified. Issuing the certificate…`,
  active: (d) => `${d.domain} is live over HTTPS.`,
  dns_misconfigured: (d) => `${d.domain}: its DNS no longer points here. It is still served until ${
    d.misconfiguration ? formatDateTime(d.misconfiguration.detachAt) : 'the end of its grace period'
  }; fix the record shown.`,
  certificate_delayed: (d) => `${d.domain}: the certificate is delayed. See the diagnosis.`,
  removed: (d) => `${d.domain} was removed.`,
};

type StepState = 'todo' | 'current' | 'done' | 'failed';

function steps({ state, diagnosis }: Domain): Array<{ label: string; state: StepState }> {
  const live = isServing({ state });
  const dnsFailed = state === 'dns_failed' || state === 'dns_misconfigured' ||
    (state === 'certificate_delayed' && diagnosis?.dnsStillVerifies === false);
  const dns: StepState = state === 'verifying' ? 'current' : dnsFailed ? 'failed' : state === 'pending_dns' ? 'todo' : 'done';
  const certificate: StepState =
    state === 'issuing_certificate' ? 'current' : state === 'certificate_delayed' ? 'failed' : live ? 'done' : 'todo';
  return [
    { label: 'DNS check', state: dns },
    { label: 'Certificate', state: certificate },
    { label: 'Live', state: live ? 'done' : 'todo' },
  ];
}

const STEP: Record<StepState, { icon: string; text: string }> = {
  todo: { icon: '○', text: 'not started' },
  current: { icon: '◐', text: 'in progress' },
  done: { icon: '✓', text: 'done' },
  failed: { icon: '✕', text: 'failed' },
};

/** DNS check → certificate → live, each with an icon and a word. */
export function VerifySteps({ domain }: { readonly domain: Domain }) {
  return (
    <ol className="steps" aria-label={`Verification of ${domain.domain}`}>
      {steps(domain).map((step) => (
        <li key={step.label} className={`step step-${step.state}`} aria-current={step.state === 'current' ? 'step' : undefined}>
          <span className={`step-icon${step.state === 'current' ? ' spin' : ''}`} aria-hidden="true">{STEP[step.state].icon}</span>
          <span className="step-label">{step.label}</span>
          <span className="step-state">{STEP[step.state].text}</span>
        </li>
      ))}
    </ol>
  );
}

const NOTE_TITLE: Record<Schemas['DnsRecordInstruction']['type'], string> = {
  ALIAS: 'Not every DNS provider supports ALIAS or ANAME records',
  CNAME: 'About this record',
  TXT: 'Why the TXT record: proof that the domain is yours',
};

/** The records to set, each name and value with a copy button; the routing record first, the ownership TXT record beside it. */
export function RecordsTable({ domain, records }: { readonly domain: string; readonly records: Domain['records'] }) {
  return (
    <>
      <div className="table-scroll">
        <table className="table records responsive">
          <caption>{`DNS records for ${domain}`}</caption>
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
              <th scope="col">TTL</th>
            </tr>
          </thead>
          <tbody>
            {records.map((record) => (
              <tr key={`${record.type}-${record.fqdn}`}>
                <td data-label="Type">
                  <code>{record.type}</code>
                  {record.type === 'ALIAS' && <span className="hint block">or ANAME</span>}
                </td>
                <td data-label="Name">
                  <span className="cell-copy">
                    <code>{record.host}</code>
                    <CopyButton value={record.host} label={`Copy the record name ${record.host}`} />
                  </span>
                  <span className="hint block">{record.host === '@' ? `the apex, ${record.fqdn}` : record.fqdn}</span>
                </td>
                <td data-label="Value">
                  <span className="cell-copy">
                    <code className="record-value">{record.value}</code>
                    <CopyButton value={record.value} label={`Copy the record value ${record.value}`} />
                  </span>
                </td>
                <td data-label="TTL">
                  <code>{record.ttl}</code>
                  <span className="hint block">seconds</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {records.filter((r) => r.note).map((record) => (
        <Notice key={`note-${record.type}-${record.fqdn}`} tone={record.type === 'TXT' ? 'info' : 'warning'} title={NOTE_TITLE[record.type]}>
          <p>{record.note}</p>
        </Notice>
      ))}
    </>
  );
}

/** Each DNS failure in plain words, and what the service's detail does not say already. */
const FAILURE: Record<Schemas['DnsFailureReason'], { readonly title: string; readonly note?: string }> = {
  record_not_found: {
    title: 'No DNS record found yet',
    note: 'If you have just set it, wait a few minutes and press Re-verify.',
  },
  cname_mismatch: { title: 'The CNAME points somewhere else' },
  conflicting_record: { title: 'Another record is in the way' },
  dns_lookup_failed: {
    title: 'Our DNS lookup failed (not your record)',
    note: 'Nothing could be checked, so your record may well be right.',
  },
  apex_not_aliased: { title: 'The domain is not aliased to the platform' },
  ownership_unproven: {
    title: 'The ownership TXT record is missing',
    note: 'Keep the CNAME/ALIAS as it is, and add the TXT record beside it.',
  },
};

export function FailureExplanation({ domain, failure }: { readonly domain: Domain; readonly failure: Schemas['DnsFailure'] }) {
  const reason = FAILURE[failure.reason];
  const txt = domain.records.find((r) => r.type === 'TXT');
  const expected = failure.reason === 'ownership_unproven' && txt
    ? `TXT ${txt.fqdn} "${failure.expected}"`
    : `${domain.apex ? 'ALIAS/ANAME' : 'CNAME'} ${failure.expected}`;
  return (
    <div className="explain">
      <Notice tone="error" title={reason.title}>
        <p>{failure.detail}</p>
        {reason.note && <p>{reason.note}</p>}
      </Notice>
      <Observed observed={failure.observed} expected={expected} />
    </div>
  );
}

function Observed({ observed, expected, children }: {
  readonly observed: readonly string[];
  readonly expected: string;
  readonly children?: ReactNode;
}) {
  return (
    <dl className="facts observed">
      <div>
        <dt>What we found</dt>
        <dd>
          {observed.length > 0 ? <ul className="plain">{observed.map((o) => <li key={o}><code>{o}</code></li>)}</ul> : <span>No record</span>}
        </dd>
      </div>
      <div>
        <dt>What we expect</dt>
        <dd><code>{expected}</code></dd>
      </div>
      {children}
    </dl>
  );
}

/** A live domain whose DNS no longer points here (dns_misconfigured): still served until when, and the fix. */
export function MisconfigurationPanel({
  domain,
  misconfiguration: m,
}: { readonly domain: Domain; readonly misconfiguration: Schemas['DomainMisconfiguration'] }) {
  const routing = domain.records.find((r) => r.purpose === 'routing');
  return (
    <section className="explain misconfiguration" aria-label={`DNS problem of ${domain.domain}`}>
      <Notice tone="warning" title={`The DNS of ${domain.domain} no longer points here`}>
        <p>
          {domain.domain} is still served until <strong><Time iso={m.detachAt} /></strong>. If its DNS is
          not fixed by then, it is detached from this project: it stops serving and its certificate is released.
        </p>
        <p>{m.detail}</p>
        {FAILURE[m.reason].note && <p>{FAILURE[m.reason].note}</p>}
      </Notice>
      <Observed observed={m.observed} expected={`${routing?.type ?? 'CNAME'} ${m.expected}`}>
        <div>
          <dt>Found</dt>
          <dd><Time iso={m.since} /> <span className="hint">(last checked <Time iso={m.checkedAt} />)</span></dd>
        </div>
      </Observed>
      <p className="hint">
        Fix the record as shown below. The domain becomes active again by itself at the next scheduled check, or at
        once when you press Re-verify.
      </p>
    </section>
  );
}

const CAA_FIX = '0 issue "amazon.com"';

function Check({ ok, title, children }: Readonly<{ ok: boolean; title: string; children: ReactNode }>) {
  return (
    <li className={ok ? 'ok' : 'bad'}>
      <span aria-hidden="true" className="check-icon">{ok ? '✓' : '✕'}</span>
      <div>
        <p className="check-title">{title}</p>
        {children}
      </div>
    </li>
  );
}

export function DiagnosisPanel({ domain, diagnosis }: Readonly<{ domain: Domain; diagnosis: Schemas['DomainDiagnosis'] }>) {
  const caaAt = diagnosis.caaFoundAt ?? domain.domain;
  return (
    <section className="diagnosis" aria-label={`Certificate diagnosis for ${domain.domain}`}>
      <Notice tone="warning" title="The certificate is taking longer than expected">
        <p>
          No certificate was issued within 30 minutes of the DNS check{diagnosis.certificateFailure ? ', or the certificate authority refused it' : ''}.
          We checked the usual causes:
        </p>
      </Notice>
      <ul className="checklist">
        <Check ok={diagnosis.dnsStillVerifies} title={diagnosis.dnsStillVerifies ? 'DNS still verifies' : 'DNS no longer verifies'}>
          {diagnosis.dnsStillVerifies
            ? <p>The record still points to the platform.</p>
            : <p>{diagnosis.dnsDetail ?? 'The DNS record changed since it was verified: set it again as shown above.'}</p>}
        </Check>
        <Check
          ok={diagnosis.caaAllowsAmazon}
          title={diagnosis.caaAllowsAmazon ? 'CAA records allow our certificate authority' : 'A CAA record blocks our certificate authority'}
        >
          {diagnosis.caaAllowsAmazon
            ? <p>No CAA record stops Amazon from issuing the certificate.</p>
            : (
                <>
                  <p>
                    CAA records say which certificate authorities may issue certificates for a domain. The record
                    {diagnosis.caaRecord && <> <code>{diagnosis.caaRecord}</code></>} at{' '}
                    <strong>{caaAt}</strong> allows
                    only other authorities, so Amazon (which issues the platform’s certificates) cannot.
                  </p>
                  <p>Add this CAA record at {caaAt} (keep the existing ones if you still use those authorities):</p>
                  <p className="cell-copy">
                    <code className="record-value">{caaAt} CAA {CAA_FIX}</code>
                    <CopyButton value={CAA_FIX} label={`Copy the CAA record value ${CAA_FIX}`} />
                  </p>
                  {diagnosis.caaDetail && <p className="hint">Details: {diagnosis.caaDetail}</p>}
                </>
              )}
        </Check>
        {diagnosis.certificateFailure && (
          <Check ok={false} title="The certificate authority refused the request">
            <p>It said: {diagnosis.certificateFailure}</p>
          </Check>
        )}
      </ul>
      <p className="hint">
        Checked <Time iso={diagnosis.checkedAt} />. Fix what is marked ✕, then press Re-verify for a fresh attempt.
      </p>
    </section>
  );
}
