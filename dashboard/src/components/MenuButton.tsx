import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';

export interface MenuItem {
  readonly label: string;
  readonly onSelect: () => void;
  readonly danger?: boolean;
  readonly disabled?: boolean;
}

/** A menu button with the keyboard of the WAI-ARIA APG pattern; Tab or a click outside closes it. */
export function MenuButton({ label, items }: { readonly label: string; readonly items: readonly MenuItem[] }) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLUListElement>(null);
  const menuId = useId();
  const enabled = items.map((item, i) => (item.disabled ? -1 : i)).filter((i) => i >= 0);

  useEffect(() => {
    if (!open) return;
    const node = menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]')[active];
    node?.focus();
  }, [open, active]);

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menuRef.current?.contains(target) && !buttonRef.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [open]);

  const openAt = (index: number | undefined) => {
    if (index === undefined) return;
    setActive(index);
    setOpen(true);
  };

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) buttonRef.current?.focus();
  };

  const onButtonKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (!['ArrowDown', 'Enter', ' ', 'ArrowUp'].includes(event.key)) return;
    event.preventDefault();
    openAt(event.key === 'ArrowUp' ? enabled.at(-1) : enabled[0]);
  };

  const onMenuKey = (event: KeyboardEvent<HTMLUListElement>) => {
    const position = enabled.indexOf(active);
    const moves: Record<string, number | undefined> = {
      ArrowDown: enabled[(position + 1) % enabled.length],
      ArrowUp: enabled[(position - 1 + enabled.length) % enabled.length],
      Home: enabled[0],
      End: enabled.at(-1),
    };
    if (Object.hasOwn(moves, event.key)) {
      event.preventDefault();
      const next = moves[event.key];
      if (next !== undefined) setActive(next);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    } else if (event.key === 'Tab') {
      close(false);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      select(items[active]);
    }
  };

  const select = (item: MenuItem | undefined) => {
    if (!item || item.disabled) return;
    close(true);
    item.onSelect();
  };

  return (
    <div className="menu">
      <button
        ref={buttonRef}
        type="button"
        className="button small secondary menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={label}
        onClick={() => (open ? close(false) : openAt(enabled[0]))}
        onKeyDown={onButtonKey}
      >
        <span aria-hidden="true">⋯</span>
      </button>
      {open
        ? (
            <ul ref={menuRef} id={menuId} role="menu" aria-label={label} className="menu-list" onKeyDown={onMenuKey}>
              {items.map((item, i) => (
                <li
                  key={item.label}
                  role="menuitem"
                  tabIndex={i === active ? 0 : -1}
                  aria-disabled={item.disabled ? true : undefined}
                  className={item.danger ? 'danger' : undefined}
                  onClick={() => select(item)}
                >
                  {item.label}
                </li>
              ))}
            </ul>
          )
        : null}
    </div>
  );
}
