import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import type { MouseEvent } from 'react';
import type { ReviewQueueItem, ReviewSummary } from '../api/types.ts';
import { PagedTable, useCursorPages } from '../components/paged-table.tsx';
import { ErrorNotice, PageTitle } from '../components/status.tsx';
import { TASK_STATUSES, type TaskStatus } from '../domain.ts';
import { useI18n } from '../i18n/index.tsx';
import { checkReasonWords } from '../i18n/reasons.ts';
import { caseAge } from '../i18n/case-age.ts';
import type { MessageKey } from '../i18n/en.ts';
import { reviewsPageQuery, reviewsSummaryQuery } from '../queries/review-queries.ts';
import { useSession } from '../session-context.tsx';

const COLUMNS: MessageKey[] = [
  'queue.col.case',
  'queue.col.risk',
  'queue.col.reasons',
  'queue.col.flow',
  'queue.col.country',
  'queue.col.age',
  'queue.col.due',
  'queue.col.status',
  'queue.col.lock',
];

function Counters({ summary }: { summary: ReviewSummary }) {
  const { t } = useI18n();
  const items: [MessageKey, number][] = [
    ['queue.count.active', summary.active],
    ['status.open', summary.open],
    ['status.second_validation', summary.second_validation],
    ['status.escalated', summary.escalated],
    ['queue.count.overdue', summary.overdue],
    ['queue.count.unclaimed', summary.unclaimed],
    ['queue.count.locked_by_me', summary.locked_by_me],
    ['queue.count.high_risk', summary.high_risk],
  ];
  return (
    <section aria-labelledby="counters-title" className="counters">
      <h2 id="counters-title" className="visually-hidden">
        {t('queue.summary')}
      </h2>
      <dl>
        {items.map(([key, value]) => (
          <div key={key} className={key === 'queue.count.overdue' && value > 0 ? 'counter counter-alert' : 'counter'}>
            <dt>{t(key)}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function LockCell({ task, me, t }: { task: ReviewQueueItem; me: string; t: ReturnType<typeof useI18n>['t'] }) {
  if (!task.lock) return <span className="muted">{t('queue.free')}</span>;
  return <span>{task.lock.operator_id === me ? t('queue.lockedByMe') : t('queue.lockedByOther')}</span>;
}

/**
 * One row, drawn from plain elements: the task's link is an ordinary anchor whose click the table
 * hands to the router (openTask below), because a router Link per row (its hooks, its
 * subscriptions to the router's state) made drawing twenty rows take hundreds of milliseconds.
 */
function TaskRow({ task, i18n, me, now }: { task: ReviewQueueItem; i18n: ReturnType<typeof useI18n>; me: string; now: number }) {
  const { t, locale, dateTime } = i18n;
  const ref = task.case.external_ref;
  // data-label: each cell's column, shown before it when a narrow screen lays the row out as a card.
  return (
    <tr className={task.overdue ? 'row-overdue' : undefined}>
      <th scope="row" className="cell-case">
        {/* The client's reference names the case (the case id when the client gave none); the link opens the task. */}
        <a href={`/tasks/${encodeURIComponent(task.id)}`} data-task={task.id} className={ref ? 'row-link case-ref' : 'row-link mono case-id'}>
          {ref ?? task.case_id}
        </a>
        {ref ? <span className="mono case-id small muted queue-case-id">{task.case_id}</span> : null}
      </th>
      <td data-label={t('queue.col.risk')}>
        <span className={task.risk_score >= 70 ? 'risk risk-high' : 'risk'}>{task.risk_score}</span>
      </td>
      <td className="reasons-cell cell-wide">{task.reasons.map((r) => checkReasonWords(r, locale)).join(' ')}</td>
      <td data-label={t('queue.col.flow')}>{task.case.flow_name}</td>
      <td data-label={t('queue.col.country')}>{task.country}</td>
      <td data-label={t('queue.col.age')}>
        <time dateTime={task.case.created_at} title={dateTime(task.case.created_at)}>
          {caseAge(task.case.created_at, now, locale)}
        </time>
      </td>
      <td data-label={t('queue.col.due')}>
        {dateTime(task.due_at)}
        {task.overdue ? <span className="tag tag-alert">{t('queue.overdue')}</span> : null}
      </td>
      <td data-label={t('queue.col.status')}>
        {t(`status.${task.status}` as MessageKey)}
        {task.case.state === 'in_review' ? null : <span className="small muted"> ({t(`state.${task.case.state}` as MessageKey)})</span>}
      </td>
      <td data-label={t('queue.col.lock')}>
        <LockCell task={task} me={me} t={t} />
      </td>
    </tr>
  );
}

/** The review queue: the service's order (risk, then due date), a status filter, counters, cursor paging. */
export function QueueScreen({ status }: { status?: TaskStatus }) {
  const i18n = useI18n();
  const { t } = i18n;
  const me = useSession().operator.id;
  const navigate = useNavigate();
  // A plain click on a task's link is a navigation inside the app; a modified click (new tab) is the browser's.
  const openTask = (e: MouseEvent<HTMLElement>) => {
    const link = (e.target as HTMLElement).closest<HTMLAnchorElement>('a[data-task]');
    if (!link || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || e.defaultPrevented) return;
    e.preventDefault();
    void navigate({ to: '/tasks/$taskId', params: { taskId: link.dataset.task! } });
  };
  const pages = useCursorPages();
  const list = useQuery(reviewsPageQuery(status, pages.cursor));
  // Ages are counted from when the page came, not re-rendered every second.
  const now = list.dataUpdatedAt || Date.now();
  // Asked for once the page of rows has come (see the queue route's loader).
  const summary = useQuery({ ...reviewsSummaryQuery(), enabled: !list.isPending });
  return (
    <>
      <PageTitle text={t('queue.title')}>{t('queue.title')}</PageTitle>
      {summary.data ? <Counters summary={summary.data} /> : summary.isError ? <ErrorNotice error={summary.error} /> : null}
      <div className="toolbar">
        <label className="field-inline">
          <span>{t('queue.filter')}</span>
          <select
            value={status ?? ''}
            onChange={(e) => {
              pages.first();
              const value = e.target.value as TaskStatus | '';
              void navigate({ to: '/queue', search: value ? { status: value } : {} });
            }}
          >
            <option value="">{t('queue.filter.active')}</option>
            {TASK_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`status.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <PagedTable
        query={list}
        pages={pages}
        empty={t('queue.empty')}
        caption={t('queue.title')}
        captionId="queue-caption"
        className="table-queue"
        columns={COLUMNS.map((c) => t(c))}
        onBodyClick={openTask}
        row={(task) => <TaskRow key={task.id} task={task} i18n={i18n} me={me} now={now} />}
      />
    </>
  );
}

export const isTaskStatus = (v: unknown): v is TaskStatus => typeof v === 'string' && (TASK_STATUSES as readonly string[]).includes(v);
