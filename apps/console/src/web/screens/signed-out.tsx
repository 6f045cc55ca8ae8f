import { PageTitle } from '../components/status.tsx';
import { useI18n } from '../i18n/index.tsx';
import type { MessageKey } from '../i18n/en.ts';
import { LanguageOnly } from '../shell/public-frame.tsx';

const REASONS = ['signed_out', 'subject_unknown', 'invitation_invalid', 'subject_already_attached', 'operator_revoked', 'login_failed', 'session_ended', 'session_expired'] as const;

/** Where the console server sends the browser after a sign-out or a failed sign-in, with a plain word per reason. */
export function SignedOutScreen({ reason }: { reason?: string }) {
  const { t } = useI18n();
  const known = REASONS.find((r) => r === reason) ?? 'signed_out';
  return (
    <LanguageOnly>
      <PageTitle text={t('signedOut.title')}>{t('signedOut.title')}</PageTitle>
      <p className={known === 'signed_out' ? undefined : 'notice notice-warning'}>{t(`signedOut.reason.${known}` as MessageKey)}</p>
      <p>
        <a className="button button-primary" href="/auth/login?return_to=%2F">
          {t('signedOut.signIn')}
        </a>
      </p>
    </LanguageOnly>
  );
}
