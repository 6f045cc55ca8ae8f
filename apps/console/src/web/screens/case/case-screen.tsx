import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from '@tanstack/react-router';
import { useActionOutcome } from '../../action-outcome.tsx';
import { api, ok, reviewPieceUrl } from '../../api/client.ts';
import type { DecisionRecorded, ReviewCase, Unmasked } from '../../api/types.ts';
import { Notice } from '../../components/status.tsx';
import { useShortcuts } from '../../components/shortcuts.ts';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { reviewCaseQuery } from '../../queries/review-queries.ts';
import { useSession } from '../../session-context.tsx';
import { CaseEvidence, Facts, pendingOrFailed } from './case-parts.tsx';
import { CaseHeader } from './case-header.tsx';
import { Corrections } from './corrections.tsx';
import { DecisionPanel, DecisionRecordedNotice } from './decision.tsx';
import { Decisions } from './decisions.tsx';
import { Journal } from './journal.tsx';
import { JourneyLinkPanel } from './journey-link.tsx';
import { LockBar } from './lock-bar.tsx';
import { RevisionPanel } from './revision.tsx';
import { SubjectTable } from './subject.tsx';
import { useTaskLock } from './use-task-lock.ts';

function Overview({ data }: { data: ReviewCase }) {
  const { t, dateTime } = useI18n();
  const { task, case: c } = data;
  return (
    <section className="panel" aria-labelledby="overview-title">
      <h2 id="overview-title">{t('case.overview')}</h2>
      <Facts
        rows={[
          [t('queue.col.status'), t(`status.${task.status}` as MessageKey)],
          [
            t('case.due'),
            <>
              {dateTime(task.due_at)} {task.overdue ? <span className="tag tag-alert">{t('queue.overdue')}</span> : null}
            </>,
          ],
          [t('case.sensitivity'), task.sensitivity],
          [t('case.state'), t(`state.${c.state}` as MessageKey)],
        ]}
      />
      {task.double_validation ? <p>{t('case.doubleValidation')}</p> : null}
      <Decisions decisions={task.decisions} />
      {task.decisions_hidden ? <Notice kind="info">{t('case.decisionsHidden')}</Notice> : null}
      {task.status === 'escalated' ? <Notice kind="info">{t('case.escalatedNotice')}</Notice> : null}
      {task.status === 'closed' ? <Notice kind="info">{t('case.closedNotice')}</Notice> : null}
    </section>
  );
}

function ShortcutLegend() {
  const { t } = useI18n();
  return (
    <aside className="legend" aria-labelledby="legend-title">
      <h2 id="legend-title" className="small">
        {t('shortcuts.title')}
      </h2>
      <ul>
        <li>
          <kbd>c</kbd> {t('shortcuts.claim')}
        </li>
        <li>
          <kbd>a</kbd> {t('shortcuts.approve')}
        </li>
        <li>
          <kbd>r</kbd> {t('shortcuts.reject')}
        </li>
        <li>
          <kbd>s</kbd> {t('shortcuts.resubmit')}
        </li>
      </ul>
    </aside>
  );
}

/** The values revealed by an unmask that was finished after a re-authentication, for this task. */
function revealedOnReturn(outcome: ReturnType<typeof useActionOutcome>, taskId: string): Unmasked | undefined {
  const body = outcome?.result?.status === 200 ? (outcome.result.body as Unmasked | null) : null;
  return body?.object === 'unmasked' && body.task_id === taskId ? body : undefined;
}

/** The case screen of a review task, from GET /v1/reviews/{task}/case in one call. */
export function CaseScreen({ taskId }: { taskId: string }) {
  const { t } = useI18n();
  const session = useSession();
  const outcome = useActionOutcome();
  const query = useQuery(reviewCaseQuery(taskId));
  const lock = useTaskLock(taskId, query.data, session.operator.id);
  const [decided, setDecided] = useState<DecisionRecorded | null>(null);
  const closed = query.data?.task.status === 'closed';
  useShortcuts({ c: () => !closed && query.data && (lock.state === 'free' || lock.state === 'lost') && !lock.claim.isPending && lock.claim.mutate() });
  // The window's title (kept in the browser's history) names the task, never the client's reference.
  const title = t('case.title', { id: taskId.slice(-8) });
  if (query.isPending || query.isError) return pendingOrFailed(query, title);
  const data = query.data;
  const role = session.operator.role;
  const mayDecide = data.task.status !== 'escalated' || role === 'supervisor' || role === 'administrator';
  const state = data.case.state;
  return (
    <>
      <p>
        <Link to="/queue" className="back-link">
          ← {t('case.back')}
        </Link>
      </p>
      <CaseHeader data={data} title={title} />
      {decided ? <DecisionRecordedNotice result={decided} /> : null}
      <LockBar lock={lock} closed={closed} />
      <div className="case-grid">
        <CaseEvidence
          c={data.case}
          urlOf={(piece) => reviewPieceUrl(taskId, piece)}
          subject={
            <SubjectTable
              subject={data.subject}
              perField
              initial={revealedOnReturn(outcome, taskId)}
              reveal={(path) => ok(api.POST('/v1/reviews/{task_id}/unmask', { params: { path: { task_id: taskId }, query: path ? { field_path: path } : {} } }))}
            />
          }
        />
        <div className="case-side">
          <Overview data={data} />
          {!closed ? (
            <>
              {mayDecide ? <DecisionPanel task={data.task} checks={data.case.checks} lock={lock} mayDecide={mayDecide} onDecided={setDecided} /> : <Notice kind="info">{t('case.escalatedOnly')}</Notice>}
              <Corrections taskId={taskId} lock={lock} done={data.corrections} />
              <ShortcutLegend />
            </>
          ) : null}
          {role === 'supervisor' && (state === 'approved' || state === 'rejected') ? <RevisionPanel taskId={taskId} caseState={state} checks={data.case.checks} /> : null}
          {data.case.status === 'created' || data.case.status === 'collecting' ? <JourneyLinkPanel caseId={data.case.id} /> : null}
          <Journal entries={data.journal} />
        </div>
      </div>
    </>
  );
}
