import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { ApiUsage, Contract, Usage, UsageDaily } from '../../api/types.ts';
import { DayChart, utcDayFormat, type DaySeries } from '../../components/day-chart.tsx';
import { Empty, ErrorNotice, Loading, PageTitle } from '../../components/status.tsx';
import { USAGE_SERVICES } from '../../domain.ts';
import { useI18n } from '../../i18n/index.tsx';
import { intlTag } from '../../i18n/locale.ts';
import { useSession } from '../../session-context.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { currentPeriod, isPeriod } from './search-params.ts';
import { usageQueries } from '../../queries/oversight-queries.ts';
import { TableHead } from '../../components/table-head.tsx';


/**
 * Usage and contract (administrator, supervisor): the month's units against the quotas, the units
 * per day, the month's CSV export (a download of GET /v1/usage/export through the console), the
 * contract's subscriptions and their states, and the integration calls of the last thirty days
 * (console calls are not counted by the service).
 */
export function UsageScreen({ period, onPeriod }: { period: string; onPeriod(p: string): void }) {
  const { t } = useI18n();
  const { environment } = useSession();
  const queries = usageQueries(period);
  const usage = useQuery(queries.usage);
  const daily = useQuery(queries.daily);
  const contract = useQuery(queries.contract);
  const calls = useQuery(queries.calls);
  return (
    <>
      <PageTitle text={t('usage.title')}>{t('usage.title')}</PageTitle>
      <div className="toolbar">
        <label className="field field-row">
          <span>{t('usage.period')}</span>
          <input type="month" name="usage_period" value={period} max={currentPeriod()} onChange={(e) => isPeriod(e.target.value) && onPeriod(e.target.value)} />
        </label>
        <a className="button" href={`/api/v1/usage/export?period=${period}`} download={`usage-${period}-${environment}.csv`} aria-describedby="export-note">
          {t('usage.export')}
        </a>
        <span id="export-note" className="small muted">
          {t('usage.exportNote')}
        </span>
      </div>
      {usage.isPending ? <Loading /> : usage.isError ? <ErrorNotice error={usage.error} onRetry={() => void usage.refetch()} /> : <Totals usage={usage.data} />}
      {daily.isPending ? <Loading /> : daily.isError ? <ErrorNotice error={daily.error} /> : <DailyChart daily={daily.data} />}
      <div className="charts">
        {contract.isPending ? <Loading /> : contract.isError ? <ErrorNotice error={contract.error} /> : <ContractPanel contract={contract.data} />}
        {calls.isPending ? <Loading /> : calls.isError ? <ErrorNotice error={calls.error} /> : <CallsChart calls={calls.data} />}
      </div>
    </>
  );
}

function Totals({ usage }: { usage: Usage }) {
  const { t } = useI18n();
  const number = (n: number) => n.toLocaleString();
  return (
    <section className="panel" aria-labelledby="totals-title">
      <h2 id="totals-title">{t('usage.totals')}</h2>
      <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="totals-title">
        <table className="table table-cards">
          <TableHead labels={(['usage.col.service', 'usage.col.units', 'usage.col.quota', 'usage.col.overQuota', 'usage.col.offer', 'usage.col.excess'] as MessageKey[]).map((c) => t(c))} />
          <tbody>
            {USAGE_SERVICES.map((s) => {
              const units = usage.services[s];
              const d = usage.detail[s];
              return (
                <tr key={s}>
                  <th scope="row">{t(`usage.service.${s}` as MessageKey)}</th>
                  <td data-label={t('usage.col.units')}>
                    <strong>{number(units)}</strong>
                    {d.quota ? (
                      <>
                        <meter min={0} max={d.quota} value={Math.min(units, d.quota)} aria-label={t('usage.used', { share: Math.round((units / d.quota) * 100) })} className="quota-meter" />
                        <span className="small muted"> {t('usage.used', { share: Math.round((units / d.quota) * 100) })}</span>
                      </>
                    ) : null}
                  </td>
                  <td data-label={t('usage.col.quota')}>{d.offer === null ? t('usage.noSubscription') : d.quota === null ? t('usage.unlimited') : number(d.quota)}</td>
                  <td data-label={t('usage.col.overQuota')}>{d.over_quota ? t(`usage.overQuota.${d.over_quota}` as MessageKey) : '—'}</td>
                  <td data-label={t('usage.col.offer')}>{d.offer ?? '—'}</td>
                  <td data-label={t('usage.col.excess')}>{number(d.excess)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function DailyChart({ daily }: { daily: UsageDaily }) {
  const { t, locale } = useI18n();
  const { days, series, total, busiest } = useMemo(() => {
    // The month's days up to today: the days to come have nothing yet.
    const today = new Date().toISOString().slice(0, 10);
    const d = daily.data.filter((x) => x.date <= today);
    const series: DaySeries[] = USAGE_SERVICES.map((s, i) => ({ label: t(`usage.service.${s}` as MessageKey), values: d.map((x) => x[s]), style: i }));
    const perDay = d.map((x) => USAGE_SERVICES.reduce((n, s) => n + x[s], 0));
    const max = Math.max(0, ...perDay);
    return { days: d.map((x) => x.date), series, total: perDay.reduce((a, b) => a + b, 0), busiest: { day: d[perDay.indexOf(max)]?.date, max } };
  }, [daily, t]);
  const month = new Intl.DateTimeFormat(intlTag(locale), { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${daily.period}-01T00:00:00Z`));
  const day = busiest.day ? utcDayFormat(locale).format(new Date(`${busiest.day}T00:00:00Z`)) : '—';
  return <DayChart id="chart-usage" title={t('usage.chart')} summary={t('usage.summary', { total, period: month, day, max: busiest.max })} days={days} series={series} kind="stacked" />;
}

function CallsChart({ calls }: { calls: ApiUsage }) {
  const { t } = useI18n();
  const { days, series, total, errors } = useMemo(() => {
    const errorsOf = (x: ApiUsage['data'][number]) => x.by_status.filter((s) => s.status >= 400).reduce((n, s) => n + s.calls, 0);
    return {
      days: calls.data.map((x) => x.date),
      series: [
        { label: t('usage.api.total'), values: calls.data.map((x) => x.total), style: 0 },
        { label: t('usage.api.errors'), values: calls.data.map(errorsOf), style: 1 },
      ] satisfies DaySeries[],
      total: calls.data.reduce((n, x) => n + x.total, 0),
      errors: calls.data.reduce((n, x) => n + errorsOf(x), 0),
    };
  }, [calls, t]);
  return <DayChart id="chart-calls" title={t('usage.api')} summary={t('usage.api.summary', { total, errors })} days={days} series={series} />;
}

function ContractPanel({ contract }: { contract: Contract }) {
  const { t, dateTime } = useI18n();
  return (
    <section className="panel chart" aria-labelledby="contract-title">
      <h2 id="contract-title">{t('usage.contract')}</h2>
      <p>
        <span className="muted">{t('usage.client')}: </span>
        {contract.client.name}
      </p>
      {contract.subscriptions.length === 0 ? (
        <Empty>{t('usage.noContract')}</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="contract-title">
          <table className="table table-cards">
            <TableHead labels={(['usage.col.service', 'usage.col.offer', 'usage.col.quota', 'usage.col.starts', 'usage.col.ends', 'usage.col.state'] as MessageKey[]).map((c) => t(c))} />
            <tbody>
              {contract.subscriptions.map((s) => (
                <tr key={s.id}>
                  <th scope="row">{t(`usage.service.${s.service}` as MessageKey)}</th>
                  <td data-label={t('usage.col.offer')}>{s.offer}</td>
                  <td data-label={t('usage.col.quota')}>
                    {s.quota === null ? t('usage.unlimited') : s.quota.toLocaleString()}
                    {s.over_quota ? <span className="small muted"> · {t(`usage.overQuota.${s.over_quota}` as MessageKey)}</span> : null}
                  </td>
                  <td data-label={t('usage.col.starts')}>{dateTime(s.starts_at)}</td>
                  <td data-label={t('usage.col.ends')}>{s.ends_at ? dateTime(s.ends_at) : t('usage.openEnded')}</td>
                  <td data-label={t('usage.col.state')}>{t(`usage.state.${s.state}` as MessageKey)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
