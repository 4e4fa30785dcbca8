import { Fragment } from 'react';

/**
 * A long value (a URL, a domain, an id) that may break across lines only after its separators
 * (`.`, `/`, `-`, `_`), so `my-portfolio.platform.example.com` breaks between labels, not inside
 * one; `.long-value` adds overflow-wrap:anywhere for a single part wider than the line.
 */
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
