import { useLayoutEffect, useRef } from 'react';
import { useI18n } from '../i18n/index.tsx';

/**
 * A confirmation in the browser's own modal dialog (<dialog>.showModal(): focus kept inside,
 * Escape cancels, the page behind is inert); the focus goes back where it was when it closes.
 */
export function ConfirmDialog({ open, title, onConfirm, onCancel, busy }: { open: boolean; title: string; onConfirm(): void; onCancel(): void; busy?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const { t } = useI18n();
  // A layout effect: the dialog opens and closes with the render that asked for it, not a frame
  // later (Preact runs plain effects after the next paint).
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      const previous = document.activeElement as HTMLElement | null;
      dialog.showModal();
      return () => previous?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          {t('cancel')}
        </button>
        <button type="button" className="button button-primary" onClick={onConfirm} disabled={busy} autoFocus>
          {t('confirm')}
        </button>
      </div>
    </dialog>
  );
}
