import { useEffect, useRef, useState } from 'react';

function CopyIcon() {
  return (
    <svg aria-hidden="true" width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.5">
      <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
      <path d="M10.5 5.5V3.5a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h2" />
    </svg>
  );
}

/** A button that copies `value`; its accessible name (`label`) says what it copies, the result is announced. */
export function CopyButton({ value, label }: { readonly value: string; readonly label: string }) {
  const [status, setStatus] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  const onClick = () => {
    // The dashboard is only served in secure contexts (https, 127.0.0.1), where the clipboard API is.
    navigator.clipboard.writeText(value).then(() => setStatus('copied'), () => setStatus('failed'));
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setStatus('idle'), 2500);
  };

  return (
    <span className="copy">
      <button type="button" className="button small secondary" onClick={onClick} aria-label={label}>
        {status === 'copied' ? <span aria-hidden="true">✓</span> : <CopyIcon />}
        {status === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span className="visually-hidden" role="status">
        {status === 'copied' ? 'Copied to the clipboard' : status === 'failed' ? 'Copy failed: select the text and copy it by hand' : ''}
      </span>
      {status === 'failed' ? <span className="hint error-text" aria-hidden="true">Copy failed: select and copy by hand</span> : null}
    </span>
  );
}
