import { Link } from '@tanstack/react-router';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { OUTCOMES, type DryRun } from './flow-model.ts';
import { TableHead } from '../../components/table-head.tsx';

/**
 * What the dry run found: how many outcomes change, the from → to matrix (rows: today's outcome,
 * columns: the draft's), then each change with a few cases to open.
 */
export function DryRunResult({ result }: { result: DryRun }) {
  const { t } = useI18n();
  const count = (from: string, to: string) => result.matrix.find((c) => c.from === from && c.to === to)?.count ?? 0;
  const rows = OUTCOMES.filter((o) => result.matrix.some((c) => c.from === o));
  const changes = result.matrix.filter((c) => c.from !== c.to);
  const outcome = (o: string) => t(`flows.outcome.${o}` as MessageKey);
  return (
    <section className="panel" aria-labelledby="dry-run-title">
      <h3 id="dry-run-title">{t('flows.dry.result_title')}</h3>
      <p role="status">
        {t('flows.dry.summary', { changed: result.changed, evaluated: result.evaluated })}
        {result.skipped ? ` ${t('flows.dry.skipped', { skipped: result.skipped })}` : ''}
      </p>
      {rows.length ? (
        <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="dry-run-matrix-caption">
          <table className="table dry-matrix">
            <caption id="dry-run-matrix-caption" className="visually-hidden">
              {t('flows.dry.matrix')}
            </caption>
            <TableHead labels={[t('flows.dry.from_to'), ...OUTCOMES.map((o) => outcome(o))]} />
            <tbody>
              {rows.map((from) => (
                <tr key={from}>
                  <th scope="row">{outcome(from)}</th>
                  {OUTCOMES.map((to) => {
                    const n = count(from, to);
                    return (
                      <td key={to} className={n && from !== to ? 'dry-changed' : undefined}>
                        {n}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {changes.length ? (
        <ul className="dry-changes">
          {changes.map((c) => (
            <li key={`${c.from}-${c.to}`}>
              {t('flows.dry.change', { count: c.count, from: outcome(c.from), to: outcome(c.to) })}{' '}
              {c.case_ids.map((id) => (
                <Link key={id} to="/cases/$caseId" params={{ caseId: id }} className="mono small dry-case">
                  {id}
                </Link>
              ))}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
