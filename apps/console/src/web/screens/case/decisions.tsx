import type { ReviewTask } from '../../api/types.ts';
import { Actor } from '../../components/actor.tsx';
import { Coded } from '../../components/coded.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { checkTypeWords, decisionReasonWords } from '../../i18n/reasons.ts';

/**
 * The decisions given on the task, by whom (named from the directory), and for an override the
 * checks it went against and why. Under double validation the service sends none to an operator
 * who has not given theirs, so nothing leaks from here.
 */
export function Decisions({ decisions }: { decisions: ReviewTask['decisions'] }) {
  const { t, locale, dateTime } = useI18n();
  if (decisions.length === 0) return null;
  return (
    <>
      <h3>{t('case.decisions')}</h3>
      <ul className="plain decisions">
        {decisions.map((d) => (
          <li key={d.id}>
            <strong>{t(`decision.${d.outcome}` as MessageKey)}</strong>
            {d.reason_code ? (
              <>
                {' · '}
                <Coded code={d.reason_code}>{decisionReasonWords(d.reason_code, locale)}</Coded>
              </>
            ) : null}
            {' · '}
            <Actor actor={d.decided_by} /> <span className="muted small">({dateTime(d.created_at)})</span>
            {d.overridden_checks.length > 0 ? (
              <div className="override">
                {t('decision.override.recorded', { checks: d.overridden_checks.map((c) => checkTypeWords(c, locale)).join(', ') })}
                {d.justification !== null ? (
                  <blockquote aria-label={t('decision.override.justified')}>{d.justification}</blockquote>
                ) : (
                  <p className="muted small">{t('decision.override.erased')}</p>
                )}
              </div>
            ) : null}
          </li>
        ))}
      </ul>
    </>
  );
}
