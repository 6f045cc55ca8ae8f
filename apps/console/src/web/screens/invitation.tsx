import { useEffect, useState } from 'react';
import { acceptInvitation } from '../api/session.ts';
import { ErrorNotice, Loading, PageTitle } from '../components/status.tsx';
import { useI18n } from '../i18n/index.tsx';
import { LanguageOnly } from '../shell/public-frame.tsx';

const TOKEN = /^inv_[A-Za-z0-9_-]{10,200}$/;

/**
 * /invitation#inv_…: the token travels in the fragment (never sent in a request line or a
 * Referer), is handed to the console server in a POST body, and taken out of the address at once.
 * The server keeps it for the sign-in that follows; whether it is valid is known once the
 * provider sent the person back (then /signed-out?reason=invitation_invalid says so plainly).
 */
export function InvitationScreen() {
  const { t } = useI18n();
  const [state, setState] = useState<{ kind: 'working' } | { kind: 'missing' } | { kind: 'error'; error: unknown }>({ kind: 'working' });
  useEffect(() => {
    const token = decodeURIComponent(location.hash.slice(1));
    history.replaceState(history.state, '', location.pathname);
    if (!TOKEN.test(token)) {
      setState({ kind: 'missing' });
      return;
    }
    acceptInvitation(token).then(
      (redirect) => location.assign(redirect.startsWith('/') ? redirect : '/auth/login?return_to=%2F'),
      (error: unknown) => setState({ kind: 'error', error }),
    );
  }, []);
  return (
    <LanguageOnly>
      <PageTitle text={t('invitation.title')}>{t('invitation.title')}</PageTitle>
      {state.kind === 'working' ? <Loading label={t('invitation.working')} /> : null}
      {state.kind === 'missing' ? <p className="notice notice-warning">{t('invitation.missing')}</p> : null}
      {state.kind === 'error' ? <ErrorNotice error={state.error} /> : null}
    </LanguageOnly>
  );
}
