import type { Ref } from 'react';
import type { ReasonCode } from '../../domain.ts';
import { useI18n } from '../../i18n/index.tsx';
import { decisionReasonWords } from '../../i18n/reasons.ts';

/**
 * A reason code picked from a list of the service's decision reasons, shown in the operator's
 * words (rejection, resubmission, revision). The empty choice says whether a reason is required.
 */
export function ReasonSelect({
  name,
  reasons,
  value,
  onChange,
  optional = false,
  selectRef,
}: {
  name: string;
  reasons: readonly ReasonCode[];
  value: ReasonCode | '';
  onChange: (value: ReasonCode | '') => void;
  optional?: boolean;
  selectRef?: Ref<HTMLSelectElement>;
}) {
  const { t, locale } = useI18n();
  return (
    <label className="field">
      <span>{t('decision.reason')}</span>
      <select ref={selectRef} name={name} value={value} onChange={(e) => onChange(e.target.value as ReasonCode | '')}>
        <option value="">{t(optional ? 'decision.reason.optional' : 'decision.reason.choose')}</option>
        {reasons.map((c) => (
          <option key={c} value={c}>
            {decisionReasonWords(c, locale)}
          </option>
        ))}
      </select>
    </label>
  );
}
