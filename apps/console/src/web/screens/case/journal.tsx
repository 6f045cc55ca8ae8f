import type { JournalEntry } from '../../api/types.ts';
import { Actor } from '../../components/actor.tsx';
import { useI18n } from '../../i18n/index.tsx';

/** The case journal (latest entries, newest first) as a timeline. */
export function Journal({ entries }: { entries: JournalEntry[] }) {
  const { t, dateTime } = useI18n();
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
              <span className="timeline-action">{e.action}</span>
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
