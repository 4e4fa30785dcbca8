import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';

export interface MenuItem {
  readonly label: string;
  readonly onSelect: () => void;
  readonly danger?: boolean;
  readonly disabled?: boolean;
}

/**
 * A menu button (WAI-ARIA APG pattern): Enter, Space or ArrowDown opens it on the first item,
 * ArrowUp on the last; arrows, Home and End move between items; Escape closes it and returns
 * focus to the button; Tab or a click outside closes it.
 */
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
    if (event.key === 'ArrowDown' || event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      openAt(enabled[0]);
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      openAt(enabled[enabled.length - 1]);
    }
  };

  const move = (delta: number) => {
    const position = enabled.indexOf(active);
    const next = enabled[(position + delta + enabled.length) % enabled.length];
    if (next !== undefined) setActive(next);
  };

  const onMenuKey = (event: KeyboardEvent<HTMLUListElement>) => {
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault();
        move(1);
        break;
      case 'ArrowUp':
        event.preventDefault();
        move(-1);
        break;
      case 'Home':
        event.preventDefault();
        if (enabled[0] !== undefined) setActive(enabled[0]);
        break;
      case 'End':
        event.preventDefault();
        if (enabled.length > 0) setActive(enabled[enabled.length - 1] ?? 0);
        break;
      case 'Escape':
        event.preventDefault();
        close(true);
        break;
      case 'Tab':
        close(false);
        break;
      default:
        break;
    }
  };

  const select = (item: MenuItem) => {
    if (item.disabled) return;
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
                  onKeyDown={(event) => {
                    if (event.key === 'Enter' || event.key === ' ') {
                      event.preventDefault();
                      select(item);
                    }
                  }}
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
