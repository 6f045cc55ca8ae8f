import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { ErrorNotice, Loading, Notice, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';

/** The spec's limit (at most twenty origins); the service checks it too. */
const MAX_ORIGINS = 20;

/**
 * The origins allowed to frame the journey (GET/POST /v1/journey-embedding). The list is edited
 * here and saved whole; the service validates every origin and its refusal (with the offending
 * `origins.N`) is shown beside that origin, in its own words: the console does not second-guess it.
 */
export function OriginsScreen() {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const saved = useQuery({ queryKey: ['journey-embedding'], queryFn: () => ok(api.GET('/v1/journey-embedding')) });
  const [draft, setDraft] = useState<string[] | null>(null);
  const [next, setNext] = useState('');
  const save = useMutation({
    mutationFn: (origins: string[]) => ok(api.POST('/v1/journey-embedding', { params: { header: { 'idempotency-key': crypto.randomUUID() } }, body: { origins } })),
    onSuccess: (data) => {
      queryClient.setQueryData(['journey-embedding'], data);
      setDraft(null);
    },
  });
  if (saved.isPending) return <Loading />;
  if (saved.isError) return <ErrorNotice error={saved.error} onRetry={() => void saved.refetch()} />;
  const origins = draft ?? saved.data.origins;
  const edit = (list: string[]) => {
    save.reset();
    setDraft(list);
  };
  const add = (e: FormEvent) => {
    e.preventDefault();
    const value = next.trim();
    if (!value || origins.includes(value) || origins.length >= MAX_ORIGINS) return;
    edit([...origins, value]);
    setNext('');
  };
  const field = save.error instanceof ApiError ? save.error.field : undefined;
  const invalidIndex = field?.startsWith('origins.') ? Number(field.slice('origins.'.length)) : -1;
  return (
    <>
      <PageTitle text={t('origins.title')}>{t('origins.title')}</PageTitle>
      <p className="muted">{t('origins.intro')}</p>
      <section className="panel" aria-labelledby="origins-list">
        <h2 id="origins-list">{t('origins.list')}</h2>
        {origins.length === 0 ? (
          <p className="empty">{t('origins.empty')}</p>
        ) : (
          <ul className="plain origin-list">
            {origins.map((o, i) => (
              <li key={o} className={i === invalidIndex ? 'origin origin-invalid' : 'origin'}>
                <span className="mono break">{o}</span>
                <button type="button" className="button button-small" aria-label={t('origins.remove', { origin: o })} onClick={() => edit(origins.filter((x) => x !== o))}>
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <form className="origin-add" onSubmit={add}>
          <label className="field">
            <span>{t('origins.new')}</span>
            <input name="origin" value={next} onChange={(e) => setNext(e.target.value)} maxLength={255} autoComplete="off" inputMode="url" placeholder="https://www.example.com" />
          </label>
          <button type="submit" className="button" disabled={origins.length >= MAX_ORIGINS}>
            {t('origins.add')}
          </button>
        </form>
        {origins.length >= MAX_ORIGINS ? <p className="small muted">{t('origins.max', { max: MAX_ORIGINS })}</p> : null}
        <div className="toolbar">
          <button type="button" className="button button-primary" disabled={draft === null || save.isPending} onClick={() => save.mutate(origins)}>
            {t('origins.save')}
          </button>
          {draft !== null && !save.isError ? <span className="muted small">{t('origins.unsaved')}</span> : null}
        </div>
        {save.isError ? <ErrorNotice error={save.error} /> : null}
        {save.isSuccess ? <Notice kind="success">{t('origins.saved')}</Notice> : null}
      </section>
    </>
  );
}
