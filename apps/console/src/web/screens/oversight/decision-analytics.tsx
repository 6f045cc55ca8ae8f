import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useActorName } from '../../api/operator-names.ts';
import type { DecisionAnalytics as Analytics } from '../../api/types.ts';
import { Coded } from '../../components/coded.tsx';
import { DayChart, type DaySeries } from '../../components/day-chart.tsx';
import { ErrorNotice, Loading } from '../../components/status.tsx';
import { TableHead } from '../../components/table-head.tsx';
import { useI18n, type Translate } from '../../i18n/index.tsx';
import { intlTag } from '../../i18n/locale.ts';
import { decisionReasonWords } from '../../i18n/reasons.ts';
import { decisionAnalyticsQuery } from '../../queries/oversight-queries.ts';
import { duration, tenths } from './duration.ts';
import type { MetricsWindow } from './search-params.ts';

/**
 * What an operations lead asks of the decisions (GET /v1/reviews/analytics): every case decided in
 * the period, reviewed or not, by outcome and reason, the share the checks decided alone, the
 * median time from a case's creation to its decision, and each operator's decisions.
 */
export function DecisionAnalytics({ days }: { days: MetricsWindow }) {
  const { t } = useI18n();
  const query = useQuery(decisionAnalyticsQuery(days));
  return (
    <section className="decision-analytics" aria-labelledby="decisions-title">
      <h2 id="decisions-title">{t('analytics.title')}</h2>
      <p className="muted">{t('analytics.intro')}</p>
      {query.isPending ? <Loading /> : query.isError ? <ErrorNotice error={query.error} onRetry={() => void query.refetch()} /> : <AnalyticsBody a={query.data} days={days} />}
    </section>
  );
}

const percent = (locale: string, rate: number | null) => (rate === null ? '—' : new Intl.NumberFormat(intlTag(locale), { style: 'percent', maximumFractionDigits: 1 }).format(rate));

function AnalyticsBody({ a, days }: { a: Analytics; days: number }) {
  const { t, locale } = useI18n();
  const actorName = useActorName();
  const series = useMemo(() => chartsOf(t, a), [t, a]);
  const time = a.time_to_decision_seconds;
  const figures: [string, string | number][] = [
    [t('analytics.decided'), a.decided.total],
    [t('analytics.automation_rate'), percent(locale, a.automation_rate)],
    [t('analytics.by_operators'), a.decided.by_operators],
    [t('analytics.by_keys'), a.decided.by_keys],
    [t('analytics.p50'), duration(t, locale, time.p50)],
    [t('analytics.automatic_p50'), duration(t, locale, time.automatic_p50)],
    [t('analytics.operators_p50'), duration(t, locale, time.operators_p50)],
  ];
  const outcome = (o: 'approved' | 'rejected') => t(o === 'approved' ? 'metrics.approved' : 'metrics.rejected');
  return (
    <>
      <div className="counters">
        <dl>
          {figures.map(([label, value]) => (
            <div key={label} className="counter">
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </div>
      <div className="charts">
        <DayChart
          id="chart-decisions"
          title={t('analytics.chart.decisions')}
          summary={t('analytics.summary.decisions', { days, approved: a.decided.approved, rejected: a.decided.rejected })}
          days={series.days}
          series={series.decisions}
          kind="stacked"
        />
        <DayChart
          id="chart-automation"
          title={t('analytics.chart.automation')}
          summary={t('analytics.summary.automation', { automatic: a.decided.automatic, total: a.decided.total, rate: percent(locale, a.automation_rate) })}
          days={series.days}
          series={series.automation}
        />
      </div>
      <section className="panel" aria-labelledby="reasons-title">
        <h3 id="reasons-title">{t('analytics.reasons')}</h3>
        {a.reasons.length === 0 ? (
          <p className="empty">{t('analytics.none')}</p>
        ) : (
          <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="reasons-title">
            <table className="table table-cards">
              <TableHead labels={[t('analytics.col.outcome'), t('analytics.col.reason'), t('analytics.col.count'), t('analytics.col.automatic')]} />
              <tbody>
                {a.reasons.map((r) => (
                  <tr key={`${r.outcome}|${r.reason_code ?? ''}`}>
                    <td data-label={t('analytics.col.outcome')}>{outcome(r.outcome)}</td>
                    <td data-label={t('analytics.col.reason')}>
                      {r.reason_code === null ? r.outcome === 'approved' ? '—' : <span className="muted">{t('analytics.no_reason')}</span> : <Coded code={r.reason_code}>{decisionReasonWords(r.reason_code, locale)}</Coded>}
                    </td>
                    <td data-label={t('analytics.col.count')}>{r.count}</td>
                    <td data-label={t('analytics.col.automatic')}>{r.automatic}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section className="panel" aria-labelledby="reviewers-title">
        <h3 id="reviewers-title">{t('analytics.reviewers')}</h3>
        {a.reviewers.length === 0 ? (
          <p className="empty">{t('analytics.no_reviewer')}</p>
        ) : (
          <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="reviewers-title">
            <table className="table table-cards">
              <TableHead
                labels={[t('analytics.col.operator'), t('analytics.col.decisions'), t('metrics.approved'), t('metrics.rejected'), t('metrics.resubmission'), t('analytics.col.active_days'), t('analytics.col.per_day')]}
              />
              <tbody>
                {a.reviewers.map((r) => (
                  <tr key={r.operator_id}>
                    <td data-label={t('analytics.col.operator')}>{actorName(`op:${r.operator_id}`).name}</td>
                    <td data-label={t('analytics.col.decisions')}>{r.decisions}</td>
                    <td data-label={t('metrics.approved')}>{r.approved}</td>
                    <td data-label={t('metrics.rejected')}>{r.rejected}</td>
                    <td data-label={t('metrics.resubmission')}>{r.resubmission_requested}</td>
                    <td data-label={t('analytics.col.active_days')}>{r.active_days}</td>
                    <td data-label={t('analytics.col.per_day')}>{r.active_days ? tenths(locale, r.decisions / r.active_days) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

/** The charts' series from the daily entries (memoised: a new array would redraw the charts). */
function chartsOf(t: Translate, a: Analytics): { days: string[]; decisions: DaySeries[]; automation: DaySeries[] } {
  const d = a.daily;
  return {
    days: d.map((x) => x.date),
    decisions: [
      { label: t('metrics.approved'), values: d.map((x) => x.approved), style: 2 },
      { label: t('metrics.rejected'), values: d.map((x) => x.rejected), style: 1 },
    ],
    automation: [
      { label: t('analytics.series.automatic'), values: d.map((x) => x.automatic), style: 0 },
      { label: t('analytics.series.people'), values: d.map((x) => x.approved + x.rejected - x.automatic), style: 3 },
    ],
  };
}
