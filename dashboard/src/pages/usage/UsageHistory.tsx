import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Badge } from '../../components/Badge';
import { type Column, QueryState, Table } from '../../components/Table';
import { useApp } from '../../context';
import { queryKeys } from '../../queries';
import { formatNumber } from '../../format';
import type { KeyUsageHistory, UsageTotals } from '../../types';
import { keyMaskColumn } from '../KeysPage';
import { HistoryChart } from './HistoryChart';

const DAYS = 30;

const counts = (totals: UsageTotals) => [totals.accepted, totals.rateLimited, totals.banned].map(formatNumber);
const countColumns: readonly Column<UsageTotals>[] = [
  { label: 'Accepted', cell: (totals) => formatNumber(totals.accepted) },
  { label: 'Rate limited', cell: (totals) => formatNumber(totals.rateLimited) },
  { label: 'Banned', cell: (totals) => formatNumber(totals.banned) },
];

/** The account's last 30 UTC days: a chart, the same numbers per day in a table, and each key's totals. */
export function UsageHistory() {
  const { api, me } = useApp();
  const accountId = me.account.accountId;
  const history = useQuery({
    queryKey: queryKeys.usageHistory(accountId, DAYS),
    queryFn: () => api.usageHistory(accountId, DAYS),
  });
  const tableId = useId();
  const data = history.data;

  return (
    <section aria-labelledby="history-heading" className="card">
      <div className="card-head">
        <h2 id="history-heading">Last {DAYS} days</h2>
        <button type="button" className="button small secondary" onClick={() => void history.refetch()}>Refresh</button>
      </div>
      <p className="hint">
        Requests per UTC day, all keys of the account together. Accepted messages are counted once the worker has
        taken them (a few seconds after the request).
      </p>
      <QueryState query={history} loading="Loading the usage history…" />
      {data
        ? (
            <>
              <dl className="facts">
                <div><dt>Accepted</dt><dd>{formatNumber(data.totals.accepted)}</dd></div>
                <div><dt>Rate limited (429)</dt><dd>{formatNumber(data.totals.rateLimited)}</dd></div>
                <div><dt>Banned (429)</dt><dd>{formatNumber(data.totals.banned)}</dd></div>
              </dl>
              <p className="hint" id={`${tableId}-note`}>
                Refused counts are approximate: they may miss a few refusals (for example the last seconds of a
                flood), never add any. Each accepted message is counted once.
              </p>
              <HistoryChart days={data.days} tableId={tableId} />

              {/* Closed by default: 30 rows would push the per-key totals far down the page. */}
              <details className="history-days">
                <summary>Requests per day (table)</summary>
                <div className="table-scroll">
                  <Table
                    id={tableId}
                    responsive={false}
                    caption={`Requests per day, ${data.from} to ${data.to} (UTC), newest first`}
                    rows={[...data.days].reverse()}
                    rowKey={(day) => day.date}
                    columns={[{ label: 'Day (UTC)', cell: (day) => day.date }, ...countColumns]}
                    footer={['Total', ...counts(data.totals)]}
                  />
                </div>
              </details>

              <div className="table-scroll">
                <Table
                  caption={`Each key over the ${DAYS} days, revoked keys included`}
                  rows={data.keys}
                  rowKey={(key) => key.keyId}
                  columns={[
                    { label: 'Name', cell: (key) => key.name },
                    keyMaskColumn,
                    {
                      label: 'Status',
                      cell: (key) => key.status === 'revoked'
                        ? <Badge tone="neutral">Revoked</Badge>
                        : <Badge tone="success">Active</Badge>,
                    },
                    ...countColumns.map((c) => ({ ...c, cell: (key: KeyUsageHistory) => c.cell(key.totals) })),
                  ]}
                  footer={['All keys', null, null, ...counts(data.totals)]}
                />
              </div>
            </>
          )
        : null}
    </section>
  );
}
