import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { Badge, Card, type Column, QueryState, Table } from '../../components/parts';
import { useApp } from '../../context';
import { queryKeys } from '../../queries';
import { formatNumber } from '../../format';
import type { Schemas } from '../../types';
import { keyMaskColumn } from '../KeysPage';

type DayUsage = Schemas['DayUsage'];

const DAYS = 30;

const countColumns: readonly Column<Schemas['UsageTotals']>[] = [
  { label: 'Accepted', cell: (totals) => formatNumber(totals.accepted) },
  { label: 'Rate limited', cell: (totals) => formatNumber(totals.rateLimited) },
  { label: 'Banned', cell: (totals) => formatNumber(totals.banned) },
];

export function UsageHistory() {
  const { api, accountId } = useApp();
  const history = useQuery({
    queryKey: queryKeys.usageHistory(accountId, DAYS),
    queryFn: () => api.usageHistory(accountId, DAYS),
  });
  const tableId = useId();
  const data = history.data;

  return (
    <Card title={`Last ${DAYS} days`} refresh={() => void history.refetch()}>
      <p className="hint">
        Requests per UTC day, all keys of the account together. Accepted messages are counted once the worker has
        taken them (a few seconds after the request).
      </p>
      <QueryState query={history} loading="Loading the usage history…" />
      {data && (
        <>
          <dl className="facts">
            {SERIES.map(({ field, label }) => (
              <div key={field}><dt>{label}</dt><dd>{formatNumber(data.totals[field])}</dd></div>
            ))}
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
                footer={['Total', ...countColumns.map((c) => c.cell(data.totals))]}
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
                ...countColumns.map((c) => ({ ...c, cell: (key: Schemas['KeyUsageHistory']) => c.cell(key.totals) })),
              ]}
              footer={['All keys', null, null, ...countColumns.map((c) => c.cell(data.totals))]}
            />
          </div>
        </>
      )}
    </Card>
  );
}

/** The series, bottom to top; the legend and each bar's title name them in words too. */
const SERIES = [
  { field: 'accepted', label: 'Accepted', className: 'series-accepted' },
  { field: 'rateLimited', label: 'Rate limited (429)', className: 'series-rate-limited' },
  { field: 'banned', label: 'Banned (429)', className: 'series-banned' },
] as const;

const BAR_WIDTH = 18;
const GAP = 6;
const HEIGHT = 160;
const AXIS = 28;

/** A ceiling for the axis: 1, 2 or 5 times a power of ten, at least the highest bar. */
function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].map((m) => m * power).find((step) => step >= value) as number);
}

const total = (day: DayUsage) => day.accepted + day.rateLimited + day.banned;
const shortDate = (date: string) => date.slice(5).replace('-', '/');

/** Stacked bars per UTC day, accepted then refused by reason; screen readers get the table `tableId` instead. */
function HistoryChart({ days, tableId }: { days: readonly DayUsage[]; tableId: string }) {
  const highest = Math.max(0, ...days.map(total));
  const ceiling = niceCeiling(highest);
  const width = AXIS + days.length * (BAR_WIDTH + GAP);
  return (
    <figure className="history-chart">
      <ul className="legend" aria-label="Legend">
        {SERIES.map((s) => (
          <li key={s.field}><span className={`swatch ${s.className}`} aria-hidden="true" /> {s.label}</li>
        ))}
      </ul>
      <div
        className="chart-scroll"
        tabIndex={0}
        role="region"
        aria-label={`Chart of requests per day; the same numbers are in the table "Requests per day"`}
      >
        <svg
          viewBox={`0 0 ${width} ${HEIGHT + 24}`}
          width={width}
          height={HEIGHT + 24}
          role="img"
          aria-label={`Requests per UTC day from ${days[0]?.date ?? ''} to ${days[days.length - 1]?.date ?? ''}, stacked: accepted, rate limited, banned. Highest day: ${formatNumber(highest)} requests.`}
          aria-describedby={tableId}
        >
          <text x={0} y={10} className="axis-label">{formatNumber(ceiling)}</text>
          <text x={0} y={HEIGHT} className="axis-label">0</text>
          <line x1={AXIS - 4} x2={width} y1={HEIGHT} y2={HEIGHT} className="axis" />
          <line x1={AXIS - 4} x2={width} y1={0.5} y2={0.5} className="gridline" />
          {days.map((day, i) => {
            const x = AXIS + i * (BAR_WIDTH + GAP);
            let base = HEIGHT;
            return (
              <g key={day.date} aria-hidden="true" data-date={day.date}>
                <title>{`${day.date}: ${formatNumber(day.accepted)} accepted, ${formatNumber(day.rateLimited)} rate limited, ${formatNumber(day.banned)} banned`}</title>
                {SERIES.map((s) => {
                  const h = (day[s.field] / ceiling) * HEIGHT;
                  base -= h;
                  return h > 0
                    ? <rect key={s.field} x={x} y={base} width={BAR_WIDTH} height={h} className={s.className} />
                    : null;
                })}
                {(i % 5 === days.length % 5 || i === days.length - 1) && (
                  <text x={x + BAR_WIDTH / 2} y={HEIGHT + 16} textAnchor="middle" className="axis-label">{shortDate(day.date)}</text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <figcaption className="hint scroll-hint">Scroll sideways to see every day.</figcaption>
    </figure>
  );
}
