import type { Check } from '../../api/types.ts';
import { JUSTIFICATION_MAX_LENGTH, JUSTIFICATION_MIN_LENGTH } from '../../domain.ts';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { checkTypeWords } from '../../i18n/reasons.ts';

/** The checks an approval goes against, each with its verdict, and the justification it needs. */
export function OverrideQuestion({ checks, value, onChange }: { checks: Check[]; value: string; onChange(v: string): void }) {
  const { t, locale } = useI18n();
  const short = value.trim().length > 0 && value.trim().length < JUSTIFICATION_MIN_LENGTH;
  return (
    <>
      <div className="override">
        <p>{t('decision.override.intro')}</p>
        <ul>
          {checks.map((c) => (
            <li key={c.type}>
              <strong>{checkTypeWords(c.type, locale)}</strong> · {t(`checks.status.${c.status}` as MessageKey)}
            </li>
          ))}
        </ul>
      </div>
      <label className="field">
        <span>{t('decision.override.justification')}</span>
        <textarea
          name="justification"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          required
          minLength={JUSTIFICATION_MIN_LENGTH}
          maxLength={JUSTIFICATION_MAX_LENGTH}
          rows={4}
          autoFocus
          aria-describedby="justification-hint"
          aria-invalid={short}
        />
        <small id="justification-hint" className="muted">
          {t('decision.override.hint', { min: JUSTIFICATION_MIN_LENGTH })}
        </small>
      </label>
      {short ? <p className="field-error">{t('decision.override.tooShort', { min: JUSTIFICATION_MIN_LENGTH })}</p> : null}
    </>
  );
}
