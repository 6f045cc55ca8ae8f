import type { ReactNode } from 'react';
import { useI18n } from '../i18n/index.tsx';
import { LanguageSwitch } from './language-switch.tsx';

/** The frame of the screens shown without a session (signed out, invitation): the name and the language. */
export function LanguageOnly({ children }: { children: ReactNode }) {
  const { t } = useI18n();
  return (
    <div className="public">
      <header className="header">
        <div className="brand">
          <span className="brand-name">{t('app.name')}</span>
        </div>
        <div className="header-actions">
          <LanguageSwitch />
        </div>
      </header>
      <main id="main" className="main main-narrow">
        {children}
      </main>
    </div>
  );
}
