import { type ReactNode } from 'react';

export type BadgeTone = 'neutral' | 'success' | 'progress' | 'warning' | 'error';

const ICON: Record<BadgeTone, string> = { neutral: '○', success: '●', progress: '◐', warning: '▲', error: '✕' };

/** A status badge: an icon and a text, the colour only reinforces them. */
export function Badge({ tone, children }: { readonly tone: BadgeTone; readonly children: ReactNode }) {
  return (
    <span className={`badge badge-${tone}`}>
      <span aria-hidden="true" className="badge-icon">{ICON[tone]}</span>
      {children}
    </span>
  );
}
