import { type ComponentProps, Fragment, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { errorMessage } from '../api';
import { formatDateTime } from '../format';

export type BadgeTone = 'neutral' | 'success' | 'progress' | 'warning' | 'error';

const BADGE_ICONS: Record<BadgeTone, string> = { neutral: '○', success: '●', progress: '◐', warning: '▲', error: '✕' };

/** A status badge: an icon and a text, the colour only reinforces them. */
export function Badge({ tone, children }: { readonly tone: BadgeTone; readonly children: ReactNode }) {
  return (
    <span className={`badge badge-${tone}`}>
      <span aria-hidden="true" className="badge-icon">{BADGE_ICONS[tone]}</span>
      {children}
    </span>
  );
}

type NoticeTone = 'info' | 'success' | 'warning' | 'error';

const NOTICE_ICONS: Record<NoticeTone, string> = { info: 'ℹ', success: '✓', warning: '⚠', error: '✕' };
const LABELS: Record<NoticeTone, string> = { info: 'Note', success: 'Done', warning: 'Warning', error: 'Error' };

/** A message box whose tone an icon and a word tell; errors are alerts, others a status when `live`. */
export function Notice({ tone, title, children, live = false, id }: {
  readonly tone: NoticeTone;
  readonly title?: ReactNode;
  readonly children?: ReactNode;
  readonly live?: boolean;
  readonly id?: string;
}) {
  const role = tone === 'error' ? 'alert' : live ? 'status' : undefined;
  const label = <span className="visually-hidden">{LABELS[tone]}: </span>;
  return (
    <div className={`notice notice-${tone}`} role={role} id={id}>
      <span className="notice-icon" aria-hidden="true">{NOTICE_ICONS[tone]}</span>
      <div className="notice-text">
        {title ? <p className="notice-title">{label}{title}</p> : label}
        {children}
      </div>
    </div>
  );
}

/** An error (a message, or what a call threw) next to the action that failed; empty when there is none. */
export function ActionError({ error, id }: { readonly error: unknown; readonly id?: string }) {
  return (
    <p className="action-error" role="alert" id={id}>
      {error ? <><span aria-hidden="true">✕ </span>{errorMessage(error)}</> : null}
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

/** The page's h1 and document title; the h1 takes focus, which hash navigation does not move. */
export function PageHeading({ title, children }: { readonly title: string; readonly children?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Dashboard`;
    ref.current?.focus({ preventScroll: false });
  }, [title]);
  return (
    <div className="page-heading">
      <h1 ref={ref} tabIndex={-1}>{title}</h1>
      {children}
    </div>
  );
}

export function Time({ iso }: { readonly iso: string }) {
  return <time dateTime={iso} title={iso}>{formatDateTime(iso)}</time>;
}

/** A long value (a URL, a domain, an id) that breaks across lines after its separators (`.`, `/`, `-`, `_`). */
export function LongValue({ value }: { readonly value: string }) {
  const parts = value.split(/(?<=[./_-])/);
  return (
    <span className="long-value">
      {parts.map((part, i) => (
        // Parts of one fixed string: the index is their identity.
        <Fragment key={i}>{part}{i < parts.length - 1 && <wbr />}</Fragment>
      ))}
    </span>
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
        {status === 'copied'
          ? <span aria-hidden="true">✓</span>
          : (
              <svg aria-hidden="true" width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.5">
                <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
                <path d="M10.5 5.5V3.5a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h2" />
              </svg>
            )}
        {status === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span className="visually-hidden" role="status">
        {status === 'copied' ? 'Copied to the clipboard' : status === 'failed' ? 'Copy failed: select the text and copy it by hand' : ''}
      </span>
      {status === 'failed' && <span className="hint error-text" aria-hidden="true">Copy failed: select and copy by hand</span>}
    </span>
  );
}

/** A card section named by its heading; `head` (a badge, a link) and a Refresh button sit beside the heading. */
export function Card({ title, id, className, head, refresh, children }: {
  readonly title: ReactNode;
  /** The heading's id, for moving focus to it (it is then focusable). */
  readonly id?: string;
  readonly className?: string;
  readonly head?: ReactNode;
  readonly refresh?: () => void;
  readonly children?: ReactNode;
}) {
  const generated = useId();
  const heading = <h2 id={id ?? generated} tabIndex={id ? -1 : undefined}>{title}</h2>;
  return (
    <section aria-labelledby={id ?? generated} className={className ? `card ${className}` : 'card'}>
      {head || refresh
        ? (
            <div className="card-head">
              {heading}
              {head}
              {refresh && <button type="button" className="button small secondary" onClick={refresh}>Refresh</button>}
            </div>
          )
        : heading}
      {children}
    </section>
  );
}

/** A form checked in code (noValidate) whose submit runs `onSubmit` instead of loading a page. */
export function Form({ onSubmit, ...props }: Omit<ComponentProps<'form'>, 'onSubmit'> & { readonly onSubmit: () => unknown }) {
  return (
    <form
      noValidate
      {...props}
      onSubmit={(event) => {
        event.preventDefault();
        void onSubmit();
      }}
    />
  );
}

export interface Column<T> {
  readonly label: string;
  readonly cell: (row: T) => ReactNode;
  /** The header only screen readers read. */
  readonly hideLabel?: boolean;
  readonly className?: string;
}

/** A table whose first column heads each row; on phones a `responsive` one shows a card a row (data-label). */
export function Table<T>({ caption, hideCaption, columns, actions, rows, rowKey, footer, id, responsive = true }: {
  readonly caption: string;
  readonly hideCaption?: boolean;
  readonly columns: readonly Column<T>[];
  /** A last column of a row's buttons. */
  readonly actions?: (row: T) => ReactNode;
  readonly rows: readonly T[];
  readonly rowKey: (row: T) => string | number;
  /** A last row (totals), a cell a column. */
  readonly footer?: readonly ReactNode[];
  readonly id?: string;
  readonly responsive?: boolean;
}) {
  const all = actions ? [...columns, { label: 'Actions', hideLabel: true, className: 'actions', cell: actions }] : columns;
  const cells = (values: readonly ReactNode[]) =>
    all.map((column, i) => {
      const props = { 'data-label': column.label, className: column.className };
      return i === 0
        ? <th key={column.label} scope="row" {...props}>{values[i]}</th>
        : <td key={column.label} {...props}>{values[i]}</td>;
    });
  return (
    <table className={responsive ? 'table responsive' : 'table'} id={id}>
      <caption className={hideCaption ? 'visually-hidden' : undefined}>{caption}</caption>
      <thead>
        <tr>
          {all.map((c) => (
            <th key={c.label} scope="col">{c.hideLabel ? <span className="visually-hidden">{c.label}</span> : c.label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => <tr key={rowKey(row)}>{cells(all.map((c) => c.cell(row)))}</tr>)}
      </tbody>
      {footer && <tfoot><tr>{cells(footer)}</tr></tfoot>}
    </table>
  );
}

/** What a query shows: its error, its loading, and for a list (`rows`) `empty` or `children` with the rows. */
export function QueryState<T>({ query, loading, rows, empty, children }: {
  readonly query?: { readonly error: unknown; readonly isPending: boolean };
  readonly loading?: string;
  readonly rows?: readonly T[] | undefined;
  readonly empty?: ReactNode;
  readonly children?: (rows: readonly T[]) => ReactNode;
}) {
  return (
    <>
      {query?.error ? <Notice tone="error">{errorMessage(query.error)}</Notice> : null}
      {query?.isPending ? <Loading label={loading ?? ''} /> : null}
      {rows?.length === 0 ? <p className="empty">{empty}</p> : null}
      {rows?.length ? children?.(rows) : null}
    </>
  );
}
