import { Badge, type BadgeTone } from '../components/Badge';
import { CopyButton } from '../components/CopyButton';
import { Notice } from '../components/Notice';
import { Time } from '../components/Time';
import { formatDateTime } from '../format';
import type { DnsFailure, DnsFailureReason, DnsRecordInstruction, Domain, DomainDiagnosis, DomainState } from '../types';

export const IN_PROGRESS: ReadonlySet<DomainState> = new Set(['verifying', 'issuing_certificate']);

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

/** One sentence for the live region: what is happening to the domain now. */
export function stateAnnouncement(domain: Domain): string {
  switch (domain.state) {
    case 'pending_dns':
      return `${domain.domain}: set the DNS record, then press Verify.`;
    case 'verifying':
      return `${domain.domain}: checking DNS…`;
    case 'dns_failed':
      return `${domain.domain}: the DNS check failed. ${domain.failure ? FAILURE[domain.failure.reason].title : ''}.`;
    case 'issuing_certificate':
      return `${domain.domain}: DNS verified. Issuing the certificate…`;
    case 'active':
      return `${domain.domain} is live over HTTPS.`;
    case 'dns_misconfigured':
      return `${domain.domain}: its DNS no longer points here. It is still served until ${
        domain.misconfiguration ? formatDateTime(domain.misconfiguration.detachAt) : 'the end of its grace period'
      }; fix the record shown.`;
    case 'certificate_delayed':
      return `${domain.domain}: the certificate is delayed. See the diagnosis.`;
    case 'removed':
      return `${domain.domain} was removed.`;
  }
}

type StepState = 'todo' | 'current' | 'done' | 'failed';

function steps(domain: Domain): Array<{ label: string; state: StepState }> {
  const dnsFailedLater =
    (domain.state === 'certificate_delayed' && domain.diagnosis?.dnsStillVerifies === false) || domain.state === 'dns_misconfigured';
  const dns: StepState =
    domain.state === 'verifying'
      ? 'current'
      : domain.state === 'dns_failed' || dnsFailedLater
        ? 'failed'
        : domain.state === 'pending_dns'
          ? 'todo'
          : 'done';
  const certificate: StepState =
    domain.state === 'issuing_certificate'
      ? 'current'
      : domain.state === 'certificate_delayed'
        ? 'failed'
        : domain.state === 'active' || domain.state === 'dns_misconfigured'
          ? 'done'
          : 'todo';
  // A misconfigured domain is still live (its grace period).
  const live: StepState = domain.state === 'active' || domain.state === 'dns_misconfigured' ? 'done' : 'todo';
  return [
    { label: 'DNS check', state: dns },
    { label: 'Certificate', state: certificate },
    { label: 'Live', state: live },
  ];
}

const STEP_ICON: Record<StepState, string> = { todo: '○', current: '◐', done: '✓', failed: '✕' };
const STEP_TEXT: Record<StepState, string> = { todo: 'not started', current: 'in progress', done: 'done', failed: 'failed' };

/** DNS check → certificate → live, each with an icon and a word. */
export function VerifySteps({ domain }: { readonly domain: Domain }) {
  return (
    <ol className="steps" aria-label={`Verification of ${domain.domain}`}>
      {steps(domain).map((step) => (
        <li key={step.label} className={`step step-${step.state}`} aria-current={step.state === 'current' ? 'step' : undefined}>
          <span className={`step-icon${step.state === 'current' ? ' spin' : ''}`} aria-hidden="true">{STEP_ICON[step.state]}</span>
          <span className="step-label">{step.label}</span>
          <span className="step-state">{STEP_TEXT[step.state]}</span>
        </li>
      ))}
    </ol>
  );
}

interface RecordsTableProps {
  readonly domain: string;
  readonly records: readonly DnsRecordInstruction[];
  /** @default `DNS records for <domain>` */
  readonly caption?: string;
}

const NOTE_TITLE: Record<DnsRecordInstruction['type'], string> = {
  ALIAS: 'Not every DNS provider supports ALIAS or ANAME records',
  CNAME: 'About this record',
  TXT: 'Why the TXT record: proof that the domain is yours',
};

/** The records to set, each name and value with a copy button; the routing record first, the ownership TXT record beside it. */
export function RecordsTable({ domain, records, caption }: RecordsTableProps) {
  return (
    <>
      <div className="table-scroll">
        <table className="table records responsive">
          <caption>{caption ?? `DNS records for ${domain}`}</caption>
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
                  {record.type === 'ALIAS' ? <span className="hint block">or ANAME</span> : null}
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

interface FailureText {
  readonly title: string;
  /** What the service's detail does not say already. */
  readonly note?: string;
}

export const FAILURE: Record<DnsFailureReason, FailureText> = {
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

/** Why DNS verification failed, in plain words, with what was observed and what is expected. */
export function FailureExplanation({ domain, failure }: { readonly domain: Domain; readonly failure: DnsFailure }) {
  const reason = FAILURE[failure.reason];
  const txt = domain.records.find((r) => r.type === 'TXT');
  const expected = failure.reason === 'ownership_unproven' && txt
    ? `TXT ${txt.fqdn} "${failure.expected}"`
    : `${domain.apex ? 'ALIAS/ANAME' : 'CNAME'} ${failure.expected}`;
  return (
    <div className="explain">
      <Notice tone="error" title={reason.title}>
        <p>{failure.detail}</p>
        {reason.note ? <p>{reason.note}</p> : null}
      </Notice>
      <dl className="facts observed">
        <div>
          <dt>What we found</dt>
          <dd>
            {failure.observed.length > 0
              ? <ul className="plain">{failure.observed.map((o) => <li key={o}><code>{o}</code></li>)}</ul>
              : <span>No record</span>}
          </dd>
        </div>
        <div>
          <dt>What we expect</dt>
          <dd><code>{expected}</code></dd>
        </div>
      </dl>
    </div>
  );
}

const CAA_FIX = '0 issue "amazon.com"';

/** The certificate diagnosis (state certificate_delayed): DNS and CAA, in plain words. */
interface DiagnosisPanelProps {
  readonly domain: Domain;
  readonly diagnosis: DomainDiagnosis;
}

export function DiagnosisPanel({ domain, diagnosis }: DiagnosisPanelProps) {
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
        <li className={diagnosis.dnsStillVerifies ? 'ok' : 'bad'}>
          <span aria-hidden="true" className="check-icon">{diagnosis.dnsStillVerifies ? '✓' : '✕'}</span>
          <div>
            <p className="check-title">
              {diagnosis.dnsStillVerifies ? 'DNS still verifies' : 'DNS no longer verifies'}
            </p>
            {diagnosis.dnsStillVerifies
              ? <p>The record still points to the platform.</p>
              : <p>{diagnosis.dnsDetail ?? 'The DNS record changed since it was verified: set it again as shown above.'}</p>}
          </div>
        </li>
        <li className={diagnosis.caaAllowsAmazon ? 'ok' : 'bad'}>
          <span aria-hidden="true" className="check-icon">{diagnosis.caaAllowsAmazon ? '✓' : '✕'}</span>
          <div>
            <p className="check-title">
              {diagnosis.caaAllowsAmazon ? 'CAA records allow our certificate authority' : 'A CAA record blocks our certificate authority'}
            </p>
            {diagnosis.caaAllowsAmazon
              ? <p>No CAA record stops Amazon from issuing the certificate.</p>
              : (
                  <>
                    <p>
                      CAA records say which certificate authorities may issue certificates for a domain. The record
                      {diagnosis.caaRecord ? <> <code>{diagnosis.caaRecord}</code></> : null} at{' '}
                      <strong>{caaAt}</strong> allows
                      only other authorities, so Amazon (which issues the platform’s certificates) cannot.
                    </p>
                    <p>Add this CAA record at {caaAt} (keep the existing ones if you still use those authorities):</p>
                    <p className="cell-copy">
                      <code className="record-value">{caaAt} CAA {CAA_FIX}</code>
                      <CopyButton value={CAA_FIX} label={`Copy the CAA record value ${CAA_FIX}`} />
                    </p>
                    {diagnosis.caaDetail ? <p className="hint">Details: {diagnosis.caaDetail}</p> : null}
                  </>
                )}
          </div>
        </li>
        {diagnosis.certificateFailure
          ? (
              <li className="bad">
                <span aria-hidden="true" className="check-icon">✕</span>
                <div>
                  <p className="check-title">The certificate authority refused the request</p>
                  <p>It said: {diagnosis.certificateFailure}</p>
                </div>
              </li>
            )
          : null}
      </ul>
      <p className="hint">
        Checked <Time iso={diagnosis.checkedAt} />. Fix what is marked ✕, then press Re-verify for a fresh attempt.
      </p>
    </section>
  );
}
