import { OPERATOR_ROLES, SENSITIVITY_LEVELS, type OperatorRole, type Sensitivity } from '../../domain.ts';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';

/** A clearance as the forms hold it: the countries as typed ("FR, BE" or "*"). */
export interface ClearanceDraft {
  role: OperatorRole;
  countries: string;
  sensitivity: Sensitivity;
}

/**
 * The countries typed, as the service takes them: ["*"] alone, or two-letter codes (upper case,
 * without repeats); null when the text is neither. The service checks them again (invalid_country).
 */
export function parseCountries(text: string): string[] | null {
  const items = [...new Set(text.split(/[\s,;]+/).filter(Boolean).map((c) => c.toUpperCase()))];
  if (items.length === 0 || items.length > 250) return null;
  if (items.includes('*')) return items.length === 1 ? ['*'] : null;
  return items.every((c) => /^[A-Z]{2}$/.test(c)) ? items : null;
}

export const countriesText = (countries: readonly string[]) => countries.join(', ');

/** Role, countries and sensitivity: the fields of an invitation and of a clearance change. */
export function ClearanceFields({ idPrefix, value, onChange, invalid }: { idPrefix: string; value: ClearanceDraft; onChange(v: ClearanceDraft): void; invalid: boolean }) {
  const { t } = useI18n();
  return (
    <>
      <label className="field">
        <span>{t('clearance.role')}</span>
        <select name={`${idPrefix}_role`} value={value.role} onChange={(e) => onChange({ ...value, role: e.target.value as OperatorRole })}>
          {OPERATOR_ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`role.${r}` as MessageKey)}
            </option>
          ))}
        </select>
      </label>
      {/* The hint outside the label: it describes the field (aria-describedby) without being its name. */}
      <label className="field field-with-hint">
        <span>{t('clearance.countries')}</span>
        <input
          name={`${idPrefix}_countries`}
          value={value.countries}
          onChange={(e) => onChange({ ...value, countries: e.target.value })}
          maxLength={1000}
          autoComplete="off"
          aria-invalid={invalid}
          aria-describedby={`${idPrefix}-countries-hint`}
        />
      </label>
      <small id={`${idPrefix}-countries-hint`} className={invalid ? 'field-hint field-error' : 'field-hint muted'}>
        {invalid ? t('clearance.countriesInvalid') : t('clearance.countriesHint')}
      </small>
      <label className="field">
        <span>{t('clearance.sensitivity')}</span>
        <select name={`${idPrefix}_sensitivity`} value={value.sensitivity} onChange={(e) => onChange({ ...value, sensitivity: e.target.value as Sensitivity })}>
          {SENSITIVITY_LEVELS.map((s) => (
            <option key={s} value={s}>
              {t(`sensitivity.${s}` as MessageKey)}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}
