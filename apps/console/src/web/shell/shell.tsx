import { Link, Outlet, useRouterState } from '@tanstack/react-router';
import { useEffect, useRef, useState } from 'react';
import { useActionOutcome } from '../action-outcome.tsx';
import { logout } from '../api/session.ts';
import { Notice } from '../components/status.tsx';
import { useI18n } from '../i18n/index.tsx';
import { LanguageSwitch } from './language-switch.tsx';
import type { MessageKey } from '../i18n/en.ts';
import { useSession } from '../session-context.tsx';
import { navigationFor } from './navigation.ts';
import { useScrollEdges } from './scroll-edges.ts';

function SignOut() {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="button button-quiet"
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        try {
          location.assign(await logout());
        } catch {
          location.assign('/signed-out?reason=signed_out');
        }
      }}
    >
      {t('signout')}
    </button>
  );
}

/** The outcome of an action finished after a re-authentication, said once at the top of the screen. */
function ActionBanner() {
  const outcome = useActionOutcome();
  const { t } = useI18n();
  if (!outcome) return null;
  if (!outcome.result) return <Notice kind="warning">{t('action.gone')}</Notice>;
  const { status, body } = outcome.result;
  if (status < 300) return <Notice kind="success">{t('action.ok')}</Notice>;
  const message = (body as { error?: { message?: string } } | null)?.error?.message ?? `HTTP ${status}`;
  return <Notice kind="warning">{t('action.failed', { message })}</Notice>;
}

/** The frame of every signed-in screen: who is working, where (sandbox or production), and the navigation. */
export function Shell() {
  const session = useSession();
  const { t } = useI18n();
  const env = session.environment;
  const groups = navigationFor(session.operator.role);
  const nav = useRef<HTMLElement>(null);
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  // On a phone the navigation scrolls sideways: keep the current screen's line in view.
  useEffect(() => {
    nav.current?.querySelector<HTMLElement>('a.active')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [pathname]);
  useScrollEdges(nav);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        {t('app.skip')}
      </a>
      <header className="header">
        <div className="brand">
          <span className="brand-name">{t('app.name')}</span>
          <span className={`env env-${env}`}>{t(env === 'prod' ? 'env.prod' : 'env.sandbox')}</span>
        </div>
        <div className="who">
          <span className="who-name">{session.operator.name}</span>
          <span className="who-role">{t(`role.${session.operator.role}` as MessageKey)}</span>
        </div>
        <div className="header-actions">
          <LanguageSwitch />
          <SignOut />
        </div>
      </header>
      <nav className="nav" aria-label={t('nav.label')} ref={nav}>
        {groups.map((g) => (
          <div className="nav-group" key={g.group}>
            {groups.length > 1 ? (
              <span className="nav-group-label" id={`nav-${g.group}`}>
                {t(g.label)}
              </span>
            ) : null}
            <ul aria-labelledby={groups.length > 1 ? `nav-${g.group}` : undefined}>
              {g.items.map((item) => (
                <li key={item.to}>
                  <Link to={item.to} activeProps={{ className: 'active', 'aria-current': 'page' }}>
                    {t(item.label)}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" className="main">
        <ActionBanner />
        <Outlet />
      </main>
    </div>
  );
}
