import type { ReactNode } from 'react';
import { errorMessage } from '../api';
import { Loading, Notice } from './parts';

export interface Column<T> {
  readonly label: string;
  readonly cell: (row: T) => ReactNode;
  /** The header only screen readers read (an actions column). */
  readonly hideLabel?: boolean;
  readonly className?: string;
}

/** A table whose first column heads each row; on phones a `responsive` one shows a card a row (data-label). */
export function Table<T>({ caption, hideCaption = false, columns, rows, rowKey, footer, id, responsive = true }: {
  readonly caption: string;
  readonly hideCaption?: boolean;
  readonly columns: readonly Column<T>[];
  readonly rows: readonly T[];
  readonly rowKey: (row: T) => string | number;
  /** A last row (totals), a cell a column. */
  readonly footer?: readonly ReactNode[];
  readonly id?: string;
  readonly responsive?: boolean;
}) {
  const cells = (values: readonly ReactNode[]) =>
    columns.map((column, i) => {
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
          {columns.map((c) => (
            <th key={c.label} scope="col">{c.hideLabel ? <span className="visually-hidden">{c.label}</span> : c.label}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => <tr key={rowKey(row)}>{cells(columns.map((c) => c.cell(row)))}</tr>)}
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
