import { useEffect, useRef } from 'react';

/**
 * Single-key shortcuts for the frequent actions. They do not fire while typing (inputs, text
 * areas, selects, editable content), with a modifier held, or while a modal dialog is open.
 */
export function useShortcuts(map: Record<string, (() => void) | undefined>): void {
  const latest = useRef(map);
  latest.current = map;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
      if (document.querySelector('dialog[open]')) return;
      const action = latest.current[e.key.toLowerCase()];
      if (!action) return;
      e.preventDefault();
      action();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
