import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, casePieceUrl, ok } from '../../api/client.ts';
import { PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { useSession } from '../../session-context.tsx';
import { CaseEvidence, Facts, pendingOrFailed } from './case-parts.tsx';
import { Decisions } from './decisions.tsx';
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
  if (query.isPending || query.isError) return pendingOrFailed(query, title);
  const { case: c, reviews, decisions, subject, journal } = query.data;
  const staff = session.operator.role !== 'support';
  return (
    <>
      <PageTitle text={title}>
        {t('case.recordTitle', { id: '' })}
        <span className="mono">{caseId}</span>
      </PageTitle>
      <div className="case-grid">
        <CaseEvidence
          c={c}
          urlOf={(piece) => casePieceUrl(caseId, piece)}
          subject={<SubjectTable subject={subject} perField={false} reveal={() => ok(api.POST('/v1/cases/{case_id}/unmask', { params: { path: { case_id: caseId } } }))} />}
        />
        <div className="case-side">
          <section className="panel" aria-labelledby="overview-title">
            <h2 id="overview-title">{t('case.overview')}</h2>
            <Facts
              rows={[
                [t('search.col.status'), t(`caseStatus.${c.status}` as MessageKey)],
                [t('case.state'), t(`state.${c.state}` as MessageKey)],
                [t('case.country'), c.country],
                [t('case.flow'), `${c.flow_name} v${c.flow_version}`],
                [t('search.col.created'), dateTime(c.created_at)],
              ]}
            />
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
            <Decisions decisions={decisions} />
          </section>
          {staff && (c.status === 'created' || c.status === 'collecting') ? <JourneyLinkPanel caseId={caseId} /> : null}
          <Journal entries={journal} />
        </div>
      </div>
    </>
  );
}
