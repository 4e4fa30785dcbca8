import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';

export interface MenuItem {
  readonly label: string;
  readonly onSelect: () => void;
  readonly danger?: boolean;
}

/** A menu button with the keyboard of the WAI-ARIA APG pattern; Tab or a click outside closes it. */
export function MenuButton({ label, items }: { readonly label: string; readonly items: readonly MenuItem[] }) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLUListElement>(null);
  const menuId = useId();
  const last = items.length - 1;

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

  const openAt = (index: number) => {
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
    openAt(event.key === 'ArrowUp' ? last : 0);
  };

  const onMenuKey = (event: KeyboardEvent<HTMLUListElement>) => {
    const moves: Record<string, number> = {
      ArrowDown: active === last ? 0 : active + 1,
      ArrowUp: active === 0 ? last : active - 1,
      Home: 0,
      End: last,
    };
    if (Object.hasOwn(moves, event.key)) {
      event.preventDefault();
      setActive(moves[event.key] ?? 0);
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
    if (!item) return;
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
        onClick={() => (open ? close(false) : openAt(0))}
        onKeyDown={onButtonKey}
      >
        <span aria-hidden="true">⋯</span>
      </button>
      {open && (
        <ul ref={menuRef} id={menuId} role="menu" aria-label={label} className="menu-list" onKeyDown={onMenuKey}>
          {items.map((item, i) => (
            <li
              key={item.label}
              role="menuitem"
              tabIndex={i === active ? 0 : -1}
              className={item.danger ? 'danger' : undefined}
              onClick={() => select(item)}
            >
              {item.label}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
