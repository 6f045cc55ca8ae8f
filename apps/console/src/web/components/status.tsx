import { useEffect, useRef, type ReactNode } from 'react';
import { ApiError, ReauthNavigation } from '../api/errors.ts';
import { useI18n } from '../i18n/index.tsx';

/** The h1 of a screen: sets the document title and takes the focus when the screen opens (screen readers announce it). */
export function PageTitle({ children, text }: { children: ReactNode; text: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const { t } = useI18n();
  useEffect(() => {
    document.title = `${text} · ${t('app.name')}`;
  }, [text, t]);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <h1 ref={ref} tabIndex={-1} className="page-title">
      {children}
    </h1>
  );
}

export function Loading({ label }: { label?: string }) {
  const { t } = useI18n();
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label ?? t('loading')}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** An error in plain words: the service's message (written for people), and its reference for support. */
export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useI18n();
  if (error instanceof ReauthNavigation) return <Loading label={t('reauth.going')} />;
  const message = error instanceof ApiError ? error.message : t('error.network');
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{t('error.title')}</p>
      <p>{message}</p>
      {error instanceof ApiError && error.requestId ? <p className="muted small">{t('error.request_id', { id: error.requestId })}</p> : null}
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          {t('retry')}
        </button>
      ) : null}
    </div>
  );
}

export function Notice({ kind, children }: { kind: 'info' | 'success' | 'warning'; children: ReactNode }) {
  return (
    <div className={`notice notice-${kind}`} role={kind === 'warning' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
