import { useI18n } from '../../i18n/index.tsx';

/** How many past cases a dry run decides again (the service's bounds and default). */
export const DRY_RUN_CASES = { min: 1, max: 10_000, default: 1_000 };

/** The dry run's number of past cases, kept within the service's bounds. */
export function DryRunCases({ value, onChange }: { value: number; onChange(n: number): void }) {
  const { t } = useI18n();
  return (
    <label className="field">
      <span>{t('flows.dry.cases')}</span>
      <input
        type="number"
        className="input-short"
        min={DRY_RUN_CASES.min}
        max={DRY_RUN_CASES.max}
        value={value}
        onChange={(e) => {
          const v = (e.target as HTMLInputElement).valueAsNumber;
          if (Number.isInteger(v)) onChange(Math.min(DRY_RUN_CASES.max, Math.max(DRY_RUN_CASES.min, v)));
        }}
      />
    </label>
  );
}
