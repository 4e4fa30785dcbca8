import { useEffect, useRef, useState } from 'react';

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Fallback for contexts without the async clipboard API.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('copy failed');
}

/** A button that copies `value`; its accessible name says what it copies, the result is announced. */
interface CopyButtonProps {
  readonly value: string;
  /** The accessible name: what it copies. */
  readonly label: string;
  readonly className?: string;
}

export function CopyButton({ value, label, className }: CopyButtonProps) {
  const [status, setStatus] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  const onClick = () => {
    copyText(value).then(
      () => setStatus('copied'),
      () => setStatus('failed'),
    );
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setStatus('idle'), 2500);
  };

  return (
    <span className="copy">
      <button type="button" className={`button small secondary ${className ?? ''}`} onClick={onClick} aria-label={label}>
        <span aria-hidden="true">{status === 'copied' ? '✓' : '⧉'}</span> {status === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span className="visually-hidden" role="status">
        {status === 'copied' ? 'Copied to the clipboard' : status === 'failed' ? 'Copy failed: select the text and copy it by hand' : ''}
      </span>
      {status === 'failed' ? <span className="hint error-text" aria-hidden="true">Copy failed: select and copy by hand</span> : null}
    </span>
  );
}
