import { useActorName } from '../api/operator-names.ts';
import { useI18n } from '../i18n/index.tsx';
import { personActorWords } from '../i18n/labels-journal.ts';

/** An actor of the journal or a decision, by name when it is an operator (the id stays as a tooltip). */
export function Actor({ actor }: { actor: string }) {
  const { t, locale } = useI18n();
  const nameOf = useActorName();
  const who = nameOf(actor);
  if (who.kind === 'operator') return <span title={actor}>{who.name}</span>;
  if (who.kind === 'system') return <span>{t('actor.system')}</span>;
  if (who.kind === 'person') return <span>{personActorWords(locale)}</span>;
  if (who.kind === 'key') return <span className="mono">{t('actor.key', { id: who.name })}</span>;
  return <span className="mono">{who.name}</span>;
}
