import { Fragment } from 'react';

/** A long value (a URL, a domain, an id) that breaks across lines after its separators (`.`, `/`, `-`, `_`). */
export function LongValue({ value }: { readonly value: string }) {
  const parts = value.split(/(?<=[./_-])/);
  return (
    <span className="long-value">
      {parts.map((part, i) => (
        // Parts of one fixed string: the index is their identity.
        <Fragment key={i}>{part}{i < parts.length - 1 ? <wbr /> : null}</Fragment>
      ))}
    </span>
  );
}
