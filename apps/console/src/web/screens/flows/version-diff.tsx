import { structuredPatch } from 'diff';
import { useMemo, useState } from 'react';
import { useI18n } from '../../i18n/index.tsx';
import { pretty, type FlowVersion } from './flow-model.ts';

/**
 * Two versions compared line by line on their pretty-printed JSON (jsdiff's structuredPatch, two
 * lines of context): what an operator reads in a code review, nothing to learn. Both definitions
 * come from the same database column, so their keys are in the same order.
 */
export function VersionDiff({ versions }: { versions: FlowVersion[] }) {
  const { t } = useI18n();
  const numbers = versions.map((v) => v.version);
  const [a, b] = useDiffPair(numbers);
  const left = versions.find((v) => v.version === a.value);
  const right = versions.find((v) => v.version === b.value);
  const hunks = useMemo(
    () => (left && right ? structuredPatch(`v${left.version}`, `v${right.version}`, pretty(left.definition), pretty(right.definition), '', '', { context: 2 }).hunks : []),
    [left, right],
  );
  return (
    <section className="panel" aria-labelledby="diff-title">
      <h2 id="diff-title">{t('flows.diff.title')}</h2>
      <div className="toolbar">
        {[a, b].map((side, i) => (
          <label key={i} className="field field-inline">
            <span>{t(i === 0 ? 'flows.diff.from' : 'flows.diff.to')}</span>
            <select value={side.value} onChange={(e) => side.set(Number((e.target as HTMLSelectElement).value))}>
              {numbers.map((n) => (
                <option key={n} value={n}>
                  {t('flows.version', { version: n })}
                </option>
              ))}
            </select>
          </label>
        ))}
      </div>
      {hunks.length === 0 ? (
        <p className="empty">{t('flows.diff.same')}</p>
      ) : (
        hunks.map((h, i) => (
          <div key={i}>
          <p className="small muted">{t('flows.diff.hunk', { line: h.newStart })}</p>
          <pre className="diff" tabIndex={0}>
            {h.lines.map((line, j) => (
              <span key={j} className={line[0] === '+' ? 'diff-add' : line[0] === '-' ? 'diff-del' : undefined}>
                {line[0] === '+' ? <span className="visually-hidden">{t('flows.diff.added')} </span> : null}
                {line[0] === '-' ? <span className="visually-hidden">{t('flows.diff.removed')} </span> : null}
                {line}
                {'\n'}
              </span>
            ))}
          </pre>
          </div>
        ))
      )}
    </section>
  );
}

/** The two versions compared: the one before the newest, and the newest, until the operator picks others. */
function useDiffPair(numbers: number[]) {
  const [from, setFrom] = useState<number | undefined>(undefined);
  const [to, setTo] = useState<number | undefined>(undefined);
  return [
    { value: from ?? numbers[1] ?? numbers[0], set: setFrom },
    { value: to ?? numbers[0], set: setTo },
  ] as const;
}
