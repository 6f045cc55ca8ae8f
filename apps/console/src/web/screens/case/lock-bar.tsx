import { ErrorNotice } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { TaskLock } from './use-task-lock.ts';

/** Where the operator stands with the lock, and the claim button (shortcut c). */
export function LockBar({ lock, closed }: { lock: TaskLock; closed: boolean }) {
  const { t, dateTime } = useI18n();
  if (closed) return null;
  const claimButton = (label: string) => (
    <button type="button" className="button button-primary" onClick={() => lock.claim.mutate()} disabled={lock.claim.isPending} aria-keyshortcuts="c">
      {label}
    </button>
  );
  return (
    <div className={`lock lock-${lock.state}`} role={lock.state === 'lost' ? 'alert' : 'status'}>
      {lock.state === 'held' ? <p>{t('lock.held', { time: dateTime(lock.expiresAt!) })}</p> : null}
      {lock.state === 'other' ? <p>{t('lock.other')}</p> : null}
      {lock.state === 'free' ? (
        <>
          <p>{t('lock.free')}</p>
          {claimButton(t('lock.claim'))}
        </>
      ) : null}
      {lock.state === 'lost' ? (
        <>
          <p>{t('lock.lost')}</p>
          {claimButton(t('lock.claimAgain'))}
        </>
      ) : null}
      {lock.claim.isError ? <ErrorNotice error={lock.claim.error} /> : null}
    </div>
  );
}
