import { domainToUnicode } from 'node:url';
import type { DnsRecordInstruction, DomainConfig, DomainView } from './operator-client.js';
import { clean, keyValues, table } from './format.js';

// The CLI's text for custom domains: the records to set, a domain's state and why, the list.

/** `a.example.com` or, for an IDN, `bücher.example (xn--bcher-kva.example)`. */
export function domainName(view: Pick<DomainView, 'domain'>): string {
  const unicode = domainToUnicode(view.domain);
  return unicode && unicode !== view.domain ? `${clean(unicode)} (${view.domain})` : view.domain;
}

export function domainConfigRows(config: DomainConfig): Array<readonly [string, string]> {
  return [
    ['primary', config.primary],
    ...(config.redirects.length === 0
      ? [['redirects', 'none'] as const]
      : config.redirects.map((r) => ['redirect', `${r.from} → ${r.to} (${r.status})`] as const)),
  ];
}

export function configText(config: DomainConfig): string {
  return keyValues(domainConfigRows(config));
}

/** The records as a table, each note below it (the ALIAS caveat, why the TXT record is needed). */
export function recordsText(domain: string, records: readonly DnsRecordInstruction[]): string {
  const rows = table(['TYPE', 'HOST', 'VALUE', 'TTL'], records.map((r) => [r.type, r.host, r.value, r.ttl]));
  const notes = records.filter((r) => r.note).map((r) => `Note (${r.type}): ${clean(r.note as string)}\n`);
  return `Set ${records.length === 1 ? 'this DNS record' : 'these DNS records'} for ${domain} at your DNS provider ` +
    `(HOST is relative to your domain, @ is the domain itself):\n${rows}${notes.length > 0 ? `\n${notes.join('')}` : ''}`;
}

export function domainsTable(domains: readonly DomainView[]): string {
  if (domains.length === 0) return 'No custom domains.\n';
  return table(
    ['DOMAIN', 'STATE', 'REASON', 'TARGET', 'ACTIVE SINCE', 'UPDATED'],
    domains.map((d) => [
      domainName(d),
      d.state,
      d.failure?.reason ?? d.misconfiguration?.reason ?? (d.diagnosis ? delayReason(d.diagnosis) : undefined),
      d.target,
      d.activeAt,
      d.updatedAt,
    ]),
  );
}

function delayReason(diagnosis: NonNullable<DomainView['diagnosis']>): string {
  const reasons = [
    ...(diagnosis.caaAllowsAmazon ? [] : ['caa_blocks_amazon']),
    ...(diagnosis.dnsStillVerifies ? [] : ['dns_no_longer_verifies']),
  ];
  return reasons.length > 0 ? reasons.join(', ') : 'certificate_pending';
}

/** A domain's state, its records, and why when it failed or drifted: observed vs expected, or the certificate diagnosis. */
export function domainText(view: DomainView): string {
  const rows: Array<readonly [string, string | number | undefined]> = [
    ['domain', domainName(view)],
    ['project', view.projectId],
    ['state', view.state],
    ['attempt', view.attempt],
    ['target', view.target],
    ...view.records.map((r) => ['record', `${r.type} ${r.fqdn} ${r.value}`] as const),
  ];
  for (const dns of [view.failure, view.misconfiguration]) {
    if (!dns) continue;
    rows.push(
      ['reason', dns.reason],
      ['observed', dns.observed.length > 0 ? dns.observed.join(', ') : 'nothing'],
      ['expected', dns.expected],
      ['detail', dns.detail],
    );
  }
  const drift = view.misconfiguration;
  if (drift) {
    rows.push(
      ['misconfigured since', drift.since],
      ['served until', `${drift.detachAt} (then detached, unless the DNS is fixed first)`],
      ['checked', drift.checkedAt],
    );
  }
  const diagnosis = view.diagnosis;
  if (diagnosis) {
    rows.push(
      ['dns', diagnosis.dnsStillVerifies ? 'still verifies' : `no longer verifies${diagnosis.dnsDetail ? `: ${diagnosis.dnsDetail}` : ''}`],
      [
        'caa',
        diagnosis.caaAllowsAmazon
          ? 'allows Amazon\'s certificate authority'
          : `blocks Amazon's certificate authority: ${diagnosis.caaRecord ?? 'a CAA record'}` +
            (diagnosis.caaFoundAt ? ` (found at ${diagnosis.caaFoundAt})` : ''),
      ],
      ...(diagnosis.caaDetail ? [['caa detail', diagnosis.caaDetail] as const] : []),
      ...(diagnosis.certificateFailure ? [['certificate', diagnosis.certificateFailure] as const] : []),
      ['checked', diagnosis.checkedAt],
    );
  }
  rows.push(['verified', view.verifiedAt], ['active since', view.activeAt], ['updated', view.updatedAt]);
  return keyValues(rows);
}
