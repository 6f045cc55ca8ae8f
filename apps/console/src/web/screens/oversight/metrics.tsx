import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { ReviewMetrics } from '../../api/types.ts';
import { DayChart, utcDayFormat, type DaySeries } from '../../components/day-chart.tsx';
import { ErrorNotice, Loading, Notice, PageTitle } from '../../components/status.tsx';
import { useI18n, type Translate } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { METRICS_WINDOWS, type MetricsWindow } from './search-params.ts';
import { reviewMetricsQuery } from '../../queries/oversight-queries.ts';
import { DecisionAnalytics } from './decision-analytics.tsx';
import { duration } from './duration.ts';

/**
 * Review metrics (supervisor, administrator): the period's figures, its alerts, and three charts
 * per day (volumes, outcomes, median decision time) from the metrics' daily series, then the
 * decisions of every case (reviewed or not), within the operator's clearance (the service
 * computes everything).
 */
export function MetricsScreen({ days, onDays }: { days: MetricsWindow; onDays(d: MetricsWindow): void }) {
  const { t } = useI18n();
  const query = useQuery(reviewMetricsQuery(days));
  return (
    <>
      <PageTitle text={t('metrics.title')}>{t('metrics.title')}</PageTitle>
      <label className="field field-row">
        <span>{t('metrics.window')}</span>
        <select name="metrics_window" value={days} onChange={(e) => onDays(Number(e.target.value) as MetricsWindow)}>
          {METRICS_WINDOWS.map((d) => (
            <option key={d} value={d}>
              {t('metrics.days', { n: d })}
            </option>
          ))}
        </select>
      </label>
      {query.isPending ? <Loading /> : query.isError ? <ErrorNotice error={query.error} onRetry={() => void query.refetch()} /> : <MetricsBody m={query.data} days={days} />}
      <DecisionAnalytics days={days} />
    </>
  );
}

function MetricsBody({ m, days }: { m: ReviewMetrics; days: number }) {
  const { t, locale } = useI18n();
  const figures: [MessageKey, string | number, boolean?][] = [
    ['metrics.opened', m.volumes.opened],
    ['metrics.closed', m.volumes.closed],
    ['metrics.approved', m.outcomes.approved],
    ['metrics.rejected', m.outcomes.rejected],
    ['metrics.resubmission', m.outcomes.resubmission_requested],
    ['metrics.overdueNow', m.overdue.now, m.overdue.now > 0],
    ['metrics.closedLate', m.overdue.closed_after_due_date],
    ['metrics.p50', duration(t, locale, m.decision_time_seconds.p50)],
    ['metrics.p90', duration(t, locale, m.decision_time_seconds.p90)],
    ['metrics.escalations', m.double_validation.escalated],
    ['metrics.revisions', m.revisions],
  ];
  const series = useMemo(() => chartsOf(t, m), [t, m]);
  const busiest = m.daily.reduce((best, d) => (d.opened > best.opened ? d : best), m.daily[0] ?? { date: '', opened: 0 });
  const dayWord = (d: string) => (d ? utcDayFormat(locale).format(new Date(`${d}T00:00:00Z`)) : '—');
  return (
    <>
      <section className="counters" aria-labelledby="figures-title">
        <h2 id="figures-title" className="visually-hidden">
          {t('metrics.figures')}
        </h2>
        <dl>
          {figures.map(([key, value, alert]) => (
            <div key={key} className={alert ? 'counter counter-alert' : 'counter'}>
              <dt>{t(key)}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section aria-labelledby="alerts-title">
        <h2 id="alerts-title">{t('metrics.alerts')}</h2>
        {m.alerts.length === 0 ? (
          <p className="muted">{t('metrics.noAlert')}</p>
        ) : (
          m.alerts.map((a) => (
            <Notice key={a.code} kind="warning">
              {alertText(t, locale, a.code, m)}
            </Notice>
          ))
        )}
      </section>
      <div className="charts">
        <DayChart
          id="chart-volumes"
          title={t('metrics.chart.volumes')}
          summary={t('metrics.summary.volumes', { days, opened: m.volumes.opened, closed: m.volumes.closed, day: dayWord(busiest.date), max: busiest.opened })}
          days={series.days}
          series={series.volumes}
        />
        <DayChart
          id="chart-outcomes"
          title={t('metrics.chart.outcomes')}
          summary={t('metrics.summary.outcomes', { days, approved: m.outcomes.approved, rejected: m.outcomes.rejected, resubmission: m.outcomes.resubmission_requested })}
          days={series.days}
          series={series.outcomes}
          kind="stacked"
        />
        <DayChart
          id="chart-times"
          title={t('metrics.chart.times')}
          summary={t('metrics.summary.times', { p50: duration(t, locale, m.decision_time_seconds.p50), p90: duration(t, locale, m.decision_time_seconds.p90) })}
          days={series.days}
          series={series.times}
          format={(v) => String(Math.round(v * 10) / 10)}
        />
      </div>
    </>
  );
}

/** An alert in the operator's language, from its code and the figures it is about (the service's message is English). */
function alertText(t: Translate, locale: string, code: ReviewMetrics['alerts'][number]['code'], m: ReviewMetrics): string {
  switch (code) {
    case 'overdue_tasks':
      return t('metrics.alert.overdue_tasks', { n: m.overdue.now });
    case 'backlog_growing':
      return t('metrics.alert.backlog_growing', { opened: m.volumes.opened, closed: m.volumes.closed });
    case 'frequent_disagreements':
      return t('metrics.alert.frequent_disagreements', { escalated: m.double_validation.escalated, started: m.double_validation.started });
    case 'slow_decisions':
      return t('metrics.alert.slow_decisions', { p90: duration(t, locale, m.decision_time_seconds.p90) });
  }
}

/** The charts' series, from the daily entries (memoised: a new array would redraw the charts). */
function chartsOf(t: Translate, m: ReviewMetrics): { days: string[]; volumes: DaySeries[]; outcomes: DaySeries[]; times: DaySeries[] } {
  const d = m.daily;
  return {
    days: d.map((x) => x.date),
    volumes: [
      { label: t('metrics.opened'), values: d.map((x) => x.opened), style: 0 },
      { label: t('metrics.closed'), values: d.map((x) => x.closed), style: 1 },
    ],
    outcomes: [
      { label: t('metrics.approved'), values: d.map((x) => x.approved), style: 2 },
      { label: t('metrics.rejected'), values: d.map((x) => x.rejected), style: 1 },
      { label: t('metrics.resubmission'), values: d.map((x) => x.resubmission_requested), style: 3 },
    ],
    times: [{ label: t('metrics.p50'), values: d.map((x) => (x.decision_seconds_p50 === null ? null : Math.round(x.decision_seconds_p50 / 360) / 10)), style: 0 }],
  };
}
