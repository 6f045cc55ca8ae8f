import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, casePieceUrl, ok } from '../../api/client.ts';
import { ErrorNotice, Loading, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { useSession } from '../../session-context.tsx';
import { Checks, Duplicates } from './checks.tsx';
import { CaseImages } from './images.tsx';
import { Journal } from './journal.tsx';
import { JourneyLinkPanel } from './journey-link.tsx';
import { SubjectTable } from './subject.tsx';

/**
 * The record of a case (GET /v1/cases/{id}/record): what search results, duplicate links and a
 * support account's grants open. Its review tasks link to their case screen.
 */
export function RecordScreen({ caseId }: { caseId: string }) {
  const { t, dateTime } = useI18n();
  const session = useSession();
  const query = useQuery({
    queryKey: ['case-record', caseId],
    queryFn: () => ok(api.GET('/v1/cases/{case_id}/record', { params: { path: { case_id: caseId } } })),
    refetchOnWindowFocus: false,
    staleTime: Infinity,
  });
  const title = t('case.recordTitle', { id: caseId.slice(-8) });
  if (query.isPending) return <Loading />;
  if (query.isError)
    return (
      <>
        <PageTitle text={title}>{title}</PageTitle>
        <ErrorNotice error={query.error} onRetry={() => void query.refetch()} />
      </>
    );
  const { case: c, reviews, subject, journal } = query.data;
  const staff = session.operator.role !== 'support';
  return (
    <>
      <PageTitle text={title}>
        {t('case.recordTitle', { id: '' })}
        <span className="mono">{caseId}</span>
      </PageTitle>
      <div className="case-grid">
        <div className="case-main">
          <CaseImages pieces={c.pieces} urlOf={(piece) => casePieceUrl(caseId, piece)} />
          <SubjectTable subject={subject} perField={false} reveal={() => ok(api.POST('/v1/cases/{case_id}/unmask', { params: { path: { case_id: caseId } } }))} />
          <Checks checks={c.checks} />
          <Duplicates ids={c.duplicates} />
        </div>
        <div className="case-side">
          <section className="panel" aria-labelledby="overview-title">
            <h2 id="overview-title">{t('case.overview')}</h2>
            <dl className="facts">
              <div>
                <dt>{t('search.col.status')}</dt>
                <dd>{t(`caseStatus.${c.status}` as MessageKey)}</dd>
              </div>
              <div>
                <dt>{t('case.state')}</dt>
                <dd>{t(`state.${c.state}` as MessageKey)}</dd>
              </div>
              <div>
                <dt>{t('case.country')}</dt>
                <dd>{c.country}</dd>
              </div>
              <div>
                <dt>{t('case.flow')}</dt>
                <dd>
                  {c.flow_name} v{c.flow_version}
                </dd>
              </div>
              <div>
                <dt>{t('search.col.created')}</dt>
                <dd>{dateTime(c.created_at)}</dd>
              </div>
            </dl>
            {staff && reviews.length > 0 ? (
              <ul className="list-links">
                {reviews.map((r) => (
                  <li key={r.id}>
                    <Link to="/tasks/$taskId" params={{ taskId: r.id }} className="mono">
                      {r.id}
                    </Link>{' '}
                    · {t(`status.${r.status}` as MessageKey)}
                  </li>
                ))}
              </ul>
            ) : null}
          </section>
          {staff && (c.status === 'created' || c.status === 'collecting') ? <JourneyLinkPanel caseId={caseId} /> : null}
          <Journal entries={journal} />
        </div>
      </div>
    </>
  );
}
