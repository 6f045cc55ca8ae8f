import { useLayoutEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import { useI18n } from '../i18n/index.tsx';
import { intlTag } from '../i18n/locale.ts';
import { TableHead } from './table-head.tsx';

/**
 * A chart of values per UTC day, drawn by uPlot (a small canvas chart library: about 20 kB
 * compressed, imported only by the screens that draw charts, so it loads with their chunk and never
 * with the first screen). A canvas says nothing to a screen reader: the chart itself is hidden from
 * assistive technologies, and comes with a sentence saying what it shows and its figures as a
 * table (in a disclosure, for everyone).
 */
export interface DaySeries {
  label: string;
  values: (number | null)[];
  /** One of SERIES_STYLES: colours with at least 3:1 contrast on white, told apart by their dashes too. */
  style: number;
}

const SERIES_STYLES = [
  { color: '#0b5cad', dash: undefined },
  { color: '#b3261e', dash: [6, 3] },
  { color: '#1e7b45', dash: [2, 2] },
  { color: '#7a4f00', dash: [10, 4, 2, 4] },
] as const;

/** A UTC day (the service's days) in the operator's language. */
export const utcDayFormat = (locale: string) => new Intl.DateTimeFormat(intlTag(locale), { dateStyle: 'medium', timeZone: 'UTC' });

const HEIGHT = 220;
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];

function lineSeries(s: DaySeries, days: number): uPlot.Series {
  const style = SERIES_STYLES[s.style];
  return { label: s.label, stroke: style.color, dash: style.dash ? [...style.dash] : undefined, width: 2, points: { show: days <= 35 } };
}

function barSeries(s: DaySeries): uPlot.Series {
  const { color } = SERIES_STYLES[s.style];
  return { label: s.label, stroke: color, fill: color, width: 0, paths: uPlot.paths.bars!({ size: [0.8, 40], gap: 1 }), points: { show: false } };
}

/**
 * Stacked bars as uPlot draws them: each series' bar from zero to its running total, the tallest
 * drawn first so that the lower ones cover it (the table alternative keeps the values themselves).
 */
function stack(series: DaySeries[]): { s: DaySeries; values: (number | null)[] }[] {
  let running: number[] = series[0]?.values.map(() => 0) ?? [];
  const totals = series.map((s) => {
    running = running.map((r, i) => r + (s.values[i] ?? 0));
    return { s, values: running };
  });
  return totals.reverse();
}
const DAY_S = 86_400;

/**
 * `lines` (the default) draws each series as a line; `stacked` draws counts that add up (outcomes
 * of a day) as bars stacked in the order given, the first at the bottom.
 */
export function DayChart({
  id,
  title,
  summary,
  days,
  series,
  format,
  kind = 'lines',
}: {
  id: string;
  title: string;
  summary: string;
  days: string[];
  series: DaySeries[];
  format?: (v: number) => string;
  kind?: 'lines' | 'stacked';
}) {
  const { t, locale } = useI18n();
  const box = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);
  const show = format ?? ((v: number) => String(v));
  const dayLabel = useMemo(() => new Intl.DateTimeFormat(intlTag(locale), { day: 'numeric', month: 'short', timeZone: 'UTC' }), [locale]);

  // A layout effect: the chart is drawn with the render that placed its box, not a frame later
  // (Preact runs plain effects after the next paint).
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const drawn = kind === 'stacked' ? stack(series) : series.map((s) => ({ s, values: s.values }));
    const plot = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        // The days are UTC days: the axis says them as such whatever the browser's time zone.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true, range: (_u, min, max) => [min - DAY_S / 2, max + DAY_S / 2] }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [
          { stroke: '#3d4650', grid: { stroke: '#e3e6ea' }, ticks: { stroke: '#c5cbd3' }, values: (_u, splits) => splits.map((s) => dayLabel.format(new Date(s * 1000))) },
          {
            stroke: '#3d4650',
            grid: { stroke: '#e3e6ea' },
            ticks: { stroke: '#c5cbd3' },
            size: 56,
            // Counts have whole ticks only; a formatted measure (hours) takes uPlot's own steps.
            incrs: format ? undefined : COUNT_STEPS,
            values: (_u, splits) => splits.map((s) => show(s)),
          },
        ],
        series: [{}, ...drawn.map(({ s }) => (kind === 'stacked' ? barSeries(s) : lineSeries(s, days.length)))],
        hooks: {
          // Marks the figure once drawn: the browser tests and the benchmark wait for it.
          draw: [() => figure.current?.setAttribute('data-drawn', 'true')],
        },
      },
      [xs, ...drawn.map(({ values }) => values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
      figure.current?.removeAttribute('data-drawn');
    };
  }, [days, series, dayLabel, kind]);

  return (
    <figure className="chart panel" ref={figure} aria-labelledby={`${id}-title`}>
      <figcaption>
        <h2 id={`${id}-title`}>{title}</h2>
        <p className="small">{summary}</p>
        <ul className="chart-legend">
          {series.map((s) => (
            <li key={s.label}>
              <span className={`swatch swatch-${s.style}${kind === 'stacked' ? ' swatch-block' : ''}`} aria-hidden="true" />
              {s.label}
            </li>
          ))}
        </ul>
      </figcaption>
      <div className="chart-box" ref={box} aria-hidden="true" />
      <details className="chart-data">
        <summary>{t('chart.table')}</summary>
        <div className="table-wrap" tabIndex={0} role="region" aria-labelledby={`${id}-caption`}>
          <table className="table">
            <caption id={`${id}-caption`} className="visually-hidden">
              {title}
            </caption>
            <TableHead labels={[t('chart.date'), ...series.map((s) => s.label)]} />
            <tbody>
              {days.map((d, i) => (
                <tr key={d}>
                  <th scope="row">{dayLabel.format(new Date(`${d}T00:00:00Z`))}</th>
                  {series.map((s) => (
                    <td key={s.label}>{s.values[i] === null ? '—' : show(s.values[i]!)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
