import { type ReactNode, useEffect, useId, useRef } from 'react';

/** A modal on the native <dialog> (the page behind is inert); on close, focus returns to its opener. */
export function Dialog({ open, title, onClose, children, footer, onClosed }: {
  readonly open: boolean;
  readonly title: string;
  readonly onClose: () => void;
  readonly children: ReactNode;
  readonly footer: ReactNode;
  /** After it closed and focus went back (to move focus elsewhere instead). */
  readonly onClosed?: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (open && dialog && !dialog.open) {
      opener.current = document.activeElement;
      dialog.showModal();
    } else if (!open && dialog?.open) {
      dialog.close();
    }
  }, [open]);

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClose={() => {
        if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
        onClosed?.();
      }}
    >
      {open
        ? (
            <>
              <h2 id={titleId}>{title}</h2>
              <div className="dialog-body">{children}</div>
              <div className="dialog-actions">{footer}</div>
            </>
          )
        : null}
    </dialog>
  );
}
