import { type ReactNode } from 'react';

type Tone = 'info' | 'success' | 'warning' | 'error';

const ICONS: Record<Tone, string> = { info: 'ℹ', success: '✓', warning: '⚠', error: '✕' };
const LABELS: Record<Tone, string> = { info: 'Note', success: 'Done', warning: 'Warning', error: 'Error' };

/** A message box whose tone an icon and a word tell; errors are alerts, others a status when `live`. */
export function Notice({ tone, title, children, live = false, id }: {
  readonly tone: Tone;
  readonly title?: ReactNode;
  readonly children?: ReactNode;
  readonly live?: boolean;
  readonly id?: string;
}) {
  const role = tone === 'error' ? 'alert' : live ? 'status' : undefined;
  return (
    <div className={`notice notice-${tone}`} role={role} id={id}>
      <span className="notice-icon" aria-hidden="true">{ICONS[tone]}</span>
      <div className="notice-text">
        {title
          ? <p className="notice-title"><span className="visually-hidden">{LABELS[tone]}: </span>{title}</p>
          : <span className="visually-hidden">{LABELS[tone]}: </span>}
        {children}
      </div>
    </div>
  );
}

/** An error next to the action that failed (empty when there is none). */
export function ActionError({ message, id }: { readonly message: string | undefined; readonly id?: string }) {
  return (
    <p className="action-error" role="alert" id={id}>
      {message ? <><span aria-hidden="true">✕ </span>{message}</> : null}
    </p>
  );
}

export function Loading({ label }: { readonly label: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}
