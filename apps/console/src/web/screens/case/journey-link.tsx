import { useMutation } from '@tanstack/react-query';
import { api, ok } from '../../api/client.ts';
import { ShownOnce } from '../../components/shown-once.tsx';
import { ErrorNotice } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';

/** A new journey link for a resubmission or a lost link: the service returns it once, so it is shown once, with a copy button. */
export function JourneyLinkPanel({ caseId }: { caseId: string }) {
  const { t, locale, dateTime } = useI18n();
  const create = useMutation({
    mutationFn: () => ok(api.POST('/v1/cases/{case_id}/journey-link', { params: { path: { case_id: caseId } }, body: { locale } })),
  });
  return (
    <section className="panel" aria-labelledby="link-title">
      <h2 id="link-title">{t('journeyLink.title')}</h2>
      <p className="muted small">{t('journeyLink.intro')}</p>
      {create.data ? (
        <ShownOnce label={t('journeyLink.label')} value={create.data.url} note={t('journeyLink.shownOnce', { time: dateTime(create.data.expires_at) })} />
      ) : (
        <button type="button" className="button" onClick={() => create.mutate()} disabled={create.isPending}>
          {t('journeyLink.create')}
        </button>
      )}
      {create.isError ? <ErrorNotice error={create.error} /> : null}
    </section>
  );
}
