import { type ReactNode, useEffect, useRef } from 'react';

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
