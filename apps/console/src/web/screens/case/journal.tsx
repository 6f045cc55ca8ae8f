import type { JournalEntry } from '../../api/types.ts';
import { Actor } from '../../components/actor.tsx';
import { Coded } from '../../components/coded.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { journalActionWords } from '../../i18n/labels-journal.ts';

/** The case journal (latest entries, newest first) as a timeline, each action in plain words (the raw action on hover). */
export function Journal({ entries }: { entries: JournalEntry[] }) {
  const { t, locale, dateTime } = useI18n();
  return (
    <section className="panel" aria-labelledby="journal-title">
      <h2 id="journal-title">{t('journal.title')}</h2>
      {entries.length === 0 ? (
        <p className="muted">{t('journal.empty')}</p>
      ) : (
        <ol className="timeline">
          {entries.map((e, i) => (
            <li key={`${e.at}-${i}`}>
              <time dateTime={e.at}>{dateTime(e.at)}</time>
              <Coded code={e.action} className="timeline-action">
                {journalActionWords(e.action, locale)}
              </Coded>
              <span className="muted small">
                <Actor actor={e.actor} />
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
