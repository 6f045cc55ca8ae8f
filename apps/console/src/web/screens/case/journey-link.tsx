import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { LOCALES, localeTag, type Locale } from '@idv/domain/locales';
import { api, ok } from '../../api/client.ts';
import { ShownOnce } from '../../components/shown-once.tsx';
import { ErrorNotice } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';

/** Each journey language named in itself ("العربية", "简体中文"), as the person would look for it. */
const languageName = (locale: Locale) => {
  const tag = localeTag(locale);
  try {
    return new Intl.DisplayNames([tag], { type: 'language' }).of(tag) ?? locale;
  } catch {
    return locale;
  }
};

/**
 * A new journey link for a resubmission or a lost link, in the language the operator picks among
 * the journey's (the console's own language first): the service returns it once, so it is shown
 * once, with a copy button.
 */
export function JourneyLinkPanel({ caseId }: { caseId: string }) {
  const { t, locale, dateTime } = useI18n();
  const [language, setLanguage] = useState<Locale>(locale);
  const create = useMutation({
    mutationFn: () => ok(api.POST('/v1/cases/{case_id}/journey-link', { params: { path: { case_id: caseId } }, body: { locale: language } })),
  });
  return (
    <section className="panel" aria-labelledby="link-title">
      <h2 id="link-title">{t('journeyLink.title')}</h2>
      <p className="muted small">{t('journeyLink.intro')}</p>
      {create.data ? (
        <ShownOnce label={t('journeyLink.label')} value={create.data.url} note={t('journeyLink.shownOnce', { time: dateTime(create.data.expires_at) })} />
      ) : (
        <>
          <label className="field">
            <span>{t('journeyLink.language')}</span>
            <select name="locale" value={language} onChange={(e) => setLanguage((e.target as HTMLSelectElement).value as Locale)}>
              {LOCALES.map((l) => (
                <option key={l} value={l} lang={localeTag(l)}>
                  {languageName(l)}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="button" onClick={() => create.mutate()} disabled={create.isPending}>
            {t('journeyLink.create')}
          </button>
        </>
      )}
      {create.isError ? <ErrorNotice error={create.error} /> : null}
    </section>
  );
}
