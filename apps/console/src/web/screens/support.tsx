import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../api/client.ts';
import { Empty, ErrorNotice, Loading, PageTitle } from '../components/status.tsx';
import { useI18n } from '../i18n/index.tsx';

/** A support account's own grants in force: the only cases it may open. */
export function SupportScreen() {
  const { t, dateTime } = useI18n();
  const grants = useQuery({ queryKey: ['support-access'], queryFn: () => ok(api.GET('/v1/reviews/support-access')) });
  return (
    <>
      <PageTitle text={t('support.title')}>{t('support.title')}</PageTitle>
      {grants.isPending ? (
        <Loading />
      ) : grants.isError ? (
        <ErrorNotice error={grants.error} onRetry={() => void grants.refetch()} />
      ) : grants.data.data.filter((g) => g.status === 'active').length === 0 ? (
        <Empty>{t('support.empty')}</Empty>
      ) : (
        <ul className="cards">
          {grants.data.data
            .filter((g) => g.status === 'active')
            .map((g) => (
              <li key={g.id} className="card">
                <Link to="/cases/$caseId" params={{ caseId: g.case_id }} className="mono">
                  {g.case_id}
                </Link>
                <p>{t('support.until', { time: dateTime(g.expires_at) })}</p>
                {g.reason ? (
                  <p>
                    <span className="muted">{t('support.reason')}: </span>
                    {g.reason}
                  </p>
                ) : null}
              </li>
            ))}
        </ul>
      )}
    </>
  );
}
