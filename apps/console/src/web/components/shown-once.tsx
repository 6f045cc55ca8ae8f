import { useState, type ReactNode } from 'react';
import { useI18n } from '../i18n/index.tsx';

/**
 * A value the service returns once (a journey link, an invitation link, an API key's secrets, a
 * webhook signing secret): shown read-only with a copy button, and a line saying it will not be
 * shown again. The screen that asked for it forgets it when the operator leaves.
 */
export function ShownOnce({ label, value, note }: { label: string; value: string; note?: ReactNode }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);
  return (
    <div className="stack shown-once">
      <label className="field">
        <span>{label}</span>
        <input readOnly value={value} onFocus={(e) => e.target.select()} className="mono" />
      </label>
      {note ? <p className="small">{note}</p> : null}
      <button
        type="button"
        className="button"
        onClick={async () => {
          await navigator.clipboard.writeText(value);
          setCopied(true);
        }}
      >
        {copied ? t('shownOnce.copied') : t('shownOnce.copy')}
      </button>
      <span role="status" className="visually-hidden">
        {copied ? t('shownOnce.copied') : ''}
      </span>
    </div>
  );
}
