import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Actor } from '../../components/actor.tsx';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../../api/client.ts';
import type { CorrectionItem } from '../../api/types.ts';
import { ErrorNotice, Notice } from '../../components/status.tsx';
import { CORRECTABLE_FIELDS, type CorrectableField } from '../../domain.ts';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import type { TaskLock } from './use-task-lock.ts';

/** A correction of a field read on the document, entered beside the image under the lock (the read value is never overwritten). */
export function Corrections({ taskId, lock, done }: { taskId: string; lock: TaskLock; done: CorrectionItem[] }) {
  const { t, dateTime } = useI18n();
  const queryClient = useQueryClient();
  const [field, setField] = useState<CorrectableField>(CORRECTABLE_FIELDS[0]);
  const [value, setValue] = useState('');
  const [comment, setComment] = useState('');
  const save = useMutation({
    mutationFn: () =>
      ok(api.POST('/v1/reviews/{task_id}/corrections', { params: { path: { task_id: taskId } }, body: { field, value: value.trim(), ...(comment.trim() ? { comment: comment.trim() } : {}) } })),
    onSuccess: () => {
      setValue('');
      setComment('');
      void queryClient.invalidateQueries({ queryKey: ['review-case', taskId] });
    },
    onError: lock.noteError,
  });
  const held = lock.state === 'held';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value.trim()) save.mutate();
  };
  return (
    <section className="panel" aria-labelledby="corrections-title">
      <h2 id="corrections-title">{t('corrections.title')}</h2>
      {!held ? <p className="muted">{t('corrections.needLock')}</p> : null}
      <form onSubmit={submit} className="stack">
        <fieldset disabled={!held || save.isPending}>
          <label className="field">
            <span>{t('corrections.field')}</span>
            <select name="field" value={field} onChange={(e) => setField(e.target.value as CorrectableField)}>
              {CORRECTABLE_FIELDS.map((f) => (
                <option key={f} value={f}>
                  {t(`field.${f}` as MessageKey)}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>{t('corrections.value')}</span>
            <input name="value" value={value} onChange={(e) => setValue(e.target.value)} maxLength={200} required autoComplete="off" />
          </label>
          <label className="field">
            <span>{t('corrections.comment')}</span>
            <input name="comment" value={comment} onChange={(e) => setComment(e.target.value)} maxLength={500} autoComplete="off" />
          </label>
          <button type="submit" className="button">
            {t('corrections.submit')}
          </button>
        </fieldset>
      </form>
      {save.isSuccess ? <Notice kind="success">{t('corrections.saved', { field: t(`field.${save.data.field}` as MessageKey) })}</Notice> : null}
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      {done.length > 0 ? (
        <>
          <h3>{t('corrections.done')}</h3>
          <ul className="plain">
            {done.map((c) => (
              <li key={c.id}>
                {FIELD_KEYS.has(c.field) ? t(`field.${c.field}` as MessageKey) : c.field} · <time dateTime={c.created_at}>{dateTime(c.created_at)}</time> ·{' '}
                <span className="small">
                  <Actor actor={c.entered_by} />
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

const FIELD_KEYS = new Set<string>(CORRECTABLE_FIELDS);
