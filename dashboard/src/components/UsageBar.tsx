import { useEffect, useId, useState } from 'react';
import { formatIn, formatNumber, formatTime } from '../format';
import type { Schemas } from '../types';

function UsageBar({ label, usage }: { readonly label: string; readonly usage: Schemas['Usage']['minute'] }) {
  const id = useId();
  // The countdown to the reset ticks each second, whatever the 10-s refresh brings.
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const share = usage.limit > 0 ? usage.used / usage.limit : 0;
  const tone = share >= 1 ? 'full' : share >= 0.8 ? 'high' : 'ok';
  const text = `${formatNumber(usage.used)} of ${formatNumber(usage.limit)} used, ${formatNumber(usage.remaining)} left`;
  return (
    <div className={`usage-bar usage-${tone}`}>
      <div className="usage-bar-head">
        <span id={`${id}-label`} className="usage-bar-label">{label}</span>
        <span className="usage-bar-numbers">
          {text}
          {tone === 'full' && <strong> (limit reached)</strong>}
        </span>
      </div>
      <div
        className="usage-bar-track"
        role="progressbar"
        aria-labelledby={`${id}-label`}
        aria-valuemin={0}
        aria-valuemax={usage.limit}
        aria-valuenow={Math.min(usage.used, usage.limit)}
        aria-valuetext={text}
      >
        <div className="usage-bar-fill" style={{ width: `${Math.min(100, share * 100)}%` }} />
      </div>
      <p className="hint">
        Resets <time dateTime={usage.resetsAt}>{formatIn(usage.resetsAt, now)}</time> (at {formatTime(usage.resetsAt)})
      </p>
    </div>
  );
}

export function UsageBars({ usage }: { readonly usage: Schemas['Usage'] }) {
  return (
    <div className="bars">
      <UsageBar label="This minute" usage={usage.minute} />
      <UsageBar label="Today (UTC)" usage={usage.day} />
    </div>
  );
}
