import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { errorMessage } from '../../api';
import { Badge } from '../../components/Badge';
import { Loading, Notice } from '../../components/Notice';
import { useApp } from '../../context';
import { queryKeys } from '../../queries';
import { formatNumber } from '../../format';
import { maskedKey } from '../KeysPage';
import { HistoryChart } from './HistoryChart';

const DAYS = 30;

/**
 * The account's last 30 UTC days: a chart, the same numbers per day in a table, and each key's
 * totals (revoked keys included). Refused counts are lower bounds, and the page says so.
 */
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
      {history.error ? <Notice tone="error">{errorMessage(history.error)}</Notice> : null}
      {history.isPending ? <Loading label="Loading the usage history…" /> : null}
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
                  <table className="table" id={tableId}>
                    <caption>Requests per day, {data.from} to {data.to} (UTC), newest first</caption>
                    <thead>
                      <tr>
                        <th scope="col">Day (UTC)</th>
                        <th scope="col">Accepted</th>
                        <th scope="col">Rate limited</th>
                        <th scope="col">Banned</th>
                      </tr>
                    </thead>
                    <tbody>
                      {[...data.days].reverse().map((day) => (
                        <tr key={day.date}>
                          <th scope="row">{day.date}</th>
                          <td>{formatNumber(day.accepted)}</td>
                          <td>{formatNumber(day.rateLimited)}</td>
                          <td>{formatNumber(day.banned)}</td>
                        </tr>
                      ))}
                    </tbody>
                    <tfoot>
                      <tr>
                        <th scope="row">Total</th>
                        <td>{formatNumber(data.totals.accepted)}</td>
                        <td>{formatNumber(data.totals.rateLimited)}</td>
                        <td>{formatNumber(data.totals.banned)}</td>
                      </tr>
                    </tfoot>
                  </table>
                </div>
              </details>

              <div className="table-scroll">
                <table className="table responsive">
                  <caption>Each key over the {DAYS} days, revoked keys included</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Key</th>
                      <th scope="col">Status</th>
                      <th scope="col">Accepted</th>
                      <th scope="col">Rate limited</th>
                      <th scope="col">Banned</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.keys.map((key) => (
                      <tr key={key.keyId}>
                        <th scope="row" data-label="Name">{key.name}</th>
                        <td data-label="Key"><code className="key-mask">{maskedKey(key)}</code></td>
                        <td data-label="Status">
                          {key.status === 'revoked' ? <Badge tone="neutral">Revoked</Badge> : <Badge tone="success">Active</Badge>}
                        </td>
                        <td data-label="Accepted">{formatNumber(key.totals.accepted)}</td>
                        <td data-label="Rate limited">{formatNumber(key.totals.rateLimited)}</td>
                        <td data-label="Banned">{formatNumber(key.totals.banned)}</td>
                      </tr>
                    ))}
                  </tbody>
                  <tfoot>
                    <tr>
                      <th scope="row" data-label="Name">All keys</th>
                      <td data-label="Key" />
                      <td data-label="Status" />
                      <td data-label="Accepted">{formatNumber(data.totals.accepted)}</td>
                      <td data-label="Rate limited">{formatNumber(data.totals.rateLimited)}</td>
                      <td data-label="Banned">{formatNumber(data.totals.banned)}</td>
                    </tr>
                  </tfoot>
                </table>
              </div>
            </>
          )
        : null}
    </section>
  );
}
