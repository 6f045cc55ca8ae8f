import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { useI18n } from '../i18n/index.tsx';

/**
 * A confirmation in the browser's own modal dialog (<dialog>.showModal(): focus kept inside,
 * Escape cancels, the page behind is inert); the focus goes back where it was when it closes.
 *
 * The title asks the question; `children` says what it will do (a reason, the checks a decision
 * goes against, a field to fill). The confirming button names the action (`confirmLabel`, not a
 * bare "Confirm"). A destructive action (reject, revoke, delete…) is red and the focus starts on
 * Cancel, so that a stray Enter never does what cannot be undone.
 */
export function ConfirmDialog({
  open,
  title,
  onConfirm,
  onCancel,
  busy,
  confirmLabel,
  destructive,
  confirmDisabled,
  children,
}: {
  open: boolean;
  title: string;
  onConfirm(): void;
  onCancel(): void;
  busy?: boolean;
  confirmLabel?: string;
  destructive?: boolean;
  /** The confirming button stays disabled while something asked in `children` is missing. */
  confirmDisabled?: boolean;
  children?: ReactNode;
}) {
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
      className={destructive ? 'dialog dialog-destructive' : 'dialog'}
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      {open && children ? <div className="dialog-body">{children}</div> : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel} autoFocus={destructive}>
          {t('cancel')}
        </button>
        <button
          type="button"
          className={destructive ? 'button button-danger' : 'button button-primary'}
          onClick={onConfirm}
          disabled={busy || confirmDisabled}
          autoFocus={!destructive && !children}
        >
          {confirmLabel ?? t('confirm')}
        </button>
      </div>
    </dialog>
  );
}
