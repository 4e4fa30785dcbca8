import { formatNumber } from '../../format';
import type { DayUsage } from '../../types';

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
export function HistoryChart({ days, tableId }: { days: readonly DayUsage[]; tableId: string }) {
  const ceiling = niceCeiling(Math.max(0, ...days.map(total)));
  const width = AXIS + days.length * (BAR_WIDTH + GAP);
  const y = (value: number) => (value / ceiling) * HEIGHT;
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
          aria-label={`Requests per UTC day from ${days[0]?.date ?? ''} to ${days[days.length - 1]?.date ?? ''}, stacked: accepted, rate limited, banned. Highest day: ${formatNumber(Math.max(0, ...days.map(total)))} requests.`}
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
                  const h = y(day[s.field]);
                  base -= h;
                  return h > 0
                    ? <rect key={s.field} x={x} y={base} width={BAR_WIDTH} height={h} className={s.className} />
                    : null;
                })}
                {i % 5 === days.length % 5 || i === days.length - 1
                  ? <text x={x + BAR_WIDTH / 2} y={HEIGHT + 16} textAnchor="middle" className="axis-label">{shortDate(day.date)}</text>
                  : null}
              </g>
            );
          })}
        </svg>
      </div>
      <figcaption className="hint scroll-hint">Scroll sideways to see every day.</figcaption>
    </figure>
  );
}
