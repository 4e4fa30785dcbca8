import { type ReactNode, useEffect, useId, useRef } from 'react';
import { ActionError } from './parts';
import type { useAction } from '../flash';

/** A modal <dialog> confirming a dangerous action: Cancel (focused first), `extra`, then `confirm`, which runs `onConfirm` as
 * `action`; once closed, focus returns to its opener, or to the element `fallbackFocus` if the action removed the opener. */
export function Dialog({
  open, title, onClose, onClosed, fallbackFocus, action, confirm, busyLabel, onConfirm, disabled, extra, children,
}: {
  readonly open: boolean;
  readonly title: string;
  readonly onClose: () => void;
  /** After it closed and focus went back (to move focus elsewhere instead). */
  readonly onClosed?: () => void;
  readonly fallbackFocus?: string;
  readonly action: ReturnType<typeof useAction>;
  readonly confirm: string;
  readonly busyLabel: string;
  readonly onConfirm: () => Promise<void>;
  readonly disabled?: boolean;
  readonly extra?: ReactNode;
  readonly children: ReactNode;
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

  const close = () => {
    action.setError(undefined);
    onClose();
  };

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
      onClose={() => {
        if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
        else if (fallbackFocus) document.getElementById(fallbackFocus)?.focus();
        onClosed?.();
      }}
    >
      {open && (
        <>
          <h2 id={titleId}>{title}</h2>
          <div className="dialog-body">
            {children}
            <ActionError error={action.error} />
          </div>
          <div className="dialog-actions">
            <button type="button" className="button secondary" onClick={close} autoFocus>Cancel</button>
            {extra}
            <button
              type="button"
              className="button danger"
              disabled={action.busy || disabled}
              onClick={() => void action.run(onConfirm)}
            >
              {action.busy ? busyLabel : confirm}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}
