import { Link } from '@tanstack/react-router';
import type { Check } from '../../api/types.ts';
import { Coded } from '../../components/coded.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { measureValue, measureWords, orderedMeasures } from '../../i18n/labels-measures.ts';
import { checkReasonWords, checkTypeWords } from '../../i18n/reasons.ts';
import type { MessageKey } from '../../i18n/en.ts';

/** Every check with its status, its reasons and its measures in plain words (each raw code on hover, for support). */
export function Checks({ checks }: { checks: Check[] }) {
  const { t, locale } = useI18n();
  return (
    <section className="panel" aria-labelledby="checks-title">
      <h2 id="checks-title">{t('checks.title')}</h2>
      {checks.length === 0 ? (
        <p className="muted">{t('checks.none')}</p>
      ) : (
        <ul className="checks">
          {checks.map((c) => (
            <li key={c.type} className={`check check-${c.status}`}>
              <div className="check-head">
                <Coded code={c.type} className="check-type">
                  {checkTypeWords(c.type, locale)}
                </Coded>
                <span className={`badge badge-${c.status}`}>{t(`checks.status.${c.status}` as MessageKey)}</span>
              </div>
              {c.reasons.length > 0 ? (
                <ul className="check-reasons" aria-label={t('checks.reasons')}>
                  {c.reasons.map((r) => (
                    <li key={r}>
                      <Coded code={r}>{checkReasonWords(r, locale)}</Coded>
                    </li>
                  ))}
                </ul>
              ) : null}
              {Object.keys(c.measures).length > 0 ? (
                <dl className="measures" aria-label={t('checks.measures')}>
                  {orderedMeasures(c.type, c.measures).map(([name, value]) => (
                    <div key={name}>
                      <dt>
                        <Coded code={name}>{measureWords(c.type, name, locale)}</Coded>
                      </dt>
                      <dd>{measureValue(name, value, locale)}</dd>
                    </div>
                  ))}
                </dl>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Other cases carrying the same document or face, as links to their record. */
export function Duplicates({ ids }: { ids: string[] }) {
  const { t } = useI18n();
  return (
    <section className="panel" aria-labelledby="duplicates-title">
      <h2 id="duplicates-title">{t('duplicates.title')}</h2>
      {ids.length === 0 ? (
        <p className="muted">{t('duplicates.none')}</p>
      ) : (
        <ul className="list-links">
          {ids.map((id) => (
            <li key={id}>
              <Link to="/cases/$caseId" params={{ caseId: id }} className="mono">
                {id}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
