import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { MaskedSubject, Unmasked } from '../../api/types.ts';
import { ErrorNotice } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { TableHead } from '../../components/table-head.tsx';

type Source = 'declared' | 'entered' | 'document' | 'corrected';
const SOURCES: Source[] = ['declared', 'entered', 'document', 'corrected'];

/** The field a path names, whatever its source: declared.surname, document.surname and corrected.subject.surname are all `surname`. */
function fieldOf(path: string): string {
  return path.replace(/^(declared|entered|document|corrected)\./, '').replace(/^subject\./, '');
}

function sourceOf(path: string): Source | null {
  const head = path.split('.')[0];
  return (SOURCES as string[]).includes(head) ? (head as Source) : null;
}

const FIELD_WORDS: Record<string, MessageKey> = {
  surname: 'field.subject.surname',
  given_names: 'field.subject.given_names',
  birth_date: 'field.subject.birth_date',
  sex: 'field.subject.sex',
  nationality: 'field.subject.nationality',
  document_number: 'field.subject.document_number',
  document_expiry_date: 'field.subject.document_expiry_date',
  issuing_country: 'field.subject.issuing_country',
  personal_number: 'field.subject.personal_number',
};

/**
 * The subject, masked: each value is revealed on demand (one unmask, journaled and counted by the
 * service; past twenty cases an hour it asks for a re-authentication, and the value comes back
 * with the browser). Columns: declared by the client, entered by the person, read on the
 * document, corrected by an operator; the last column is the service's comparison, without values.
 * Revealed values live in this component's memory only.
 */
export function SubjectTable({
  subject,
  reveal,
  perField,
  initial,
}: {
  subject: MaskedSubject;
  /** One unmask; `path` reveals one field only when the route allows it. */
  reveal(path?: string): Promise<Unmasked>;
  perField: boolean;
  initial?: Unmasked;
}) {
  const { t } = useI18n();
  const [values, setValues] = useState<Record<string, string>>(initial?.values ?? {});
  const [questionnaire, setQuestionnaire] = useState<Unmasked['questionnaire'] | undefined>(initial?.questionnaire ?? undefined);
  const unmask = useMutation({
    mutationFn: (path?: string) => reveal(path),
    onSuccess: (u) => {
      setValues((v) => ({ ...v, ...u.values }));
      if (u.questionnaire !== undefined && (u.questionnaire !== null || questionnaire === undefined)) setQuestionnaire(u.questionnaire);
    },
  });
  if (subject.erased) {
    return (
      <section className="panel" aria-labelledby="subject-title">
        <h2 id="subject-title">{t('subject.title')}</h2>
        <p className="muted">{t('subject.erased')}</p>
      </section>
    );
  }
  const paths = [...subject.declared_fields, ...subject.entered_fields, ...subject.read_fields, ...subject.corrected_fields];
  const fields = [...new Set([...paths.map(fieldOf), ...subject.comparison.map((g) => g.field)])];
  const gapOf = (field: string) => subject.comparison.find((g) => g.field === field);
  const cell = (field: string, source: Source) => {
    const path = paths.find((p) => sourceOf(p) === source && fieldOf(p) === field);
    if (!path) return <span className="muted">{t('subject.absent')}</span>;
    if (path in values) return <span className="revealed">{values[path]}</span>;
    return (
      <span className="masked">
        <span aria-hidden="true">•••••</span>
        <span className="visually-hidden">{t('subject.masked')}</span>
        {perField ? (
          <button type="button" className="button button-small" onClick={() => unmask.mutate(path)} disabled={unmask.isPending} aria-label={t('subject.revealLabel', { path })}>
            {t('subject.reveal')}
          </button>
        ) : null}
      </span>
    );
  };
  return (
    <section className="panel" aria-labelledby="subject-title">
      <h2 id="subject-title">{t('subject.title')}</h2>
      <p className="muted small">{t('subject.revealNote')}</p>
      <div className="toolbar">
        <button type="button" className="button" onClick={() => unmask.mutate(undefined)} disabled={unmask.isPending}>
          {t('subject.revealAll')}
        </button>
      </div>
      {unmask.isError ? <ErrorNotice error={unmask.error} /> : null}
      <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="subject-title">
        <table className="table table-cards table-subject">
          <TableHead labels={[t('subject.col.field'), ...SOURCES.map((s) => t(`subject.col.${s}` as MessageKey)), t('subject.col.gap')]} />
          <tbody>
            {fields.map((field) => {
              const gap = gapOf(field);
              return (
                <tr key={field}>
                  <th scope="row">{FIELD_WORDS[field] ? t(FIELD_WORDS[field]) : field}</th>
                  {/* data-label: the column, shown above the cell when a narrow screen lays the row out as a card. */}
                  {SOURCES.map((s) => (
                    <td key={s} data-label={t(`subject.col.${s}` as MessageKey)}>
                      {cell(field, s)}
                    </td>
                  ))}
                  <td className="cell-gap">{gap ? <span className={`badge badge-gap-${gap.status}`}>{t(`subject.gap.${gap.status}` as MessageKey)}</span> : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h3>{t('questionnaire.title')}</h3>
      {questionnaire === undefined ? (
        <button type="button" className="button" onClick={() => unmask.mutate(perField ? 'answers' : undefined)} disabled={unmask.isPending}>
          {t('questionnaire.reveal')}
        </button>
      ) : questionnaire === null ? (
        <p className="muted">{t('questionnaire.none')}</p>
      ) : (
        <div>
          <p>{t('questionnaire.points', { points: questionnaire.points })}</p>
          {questionnaire.flags.length > 0 ? (
            <>
              <p className="muted small">{t('questionnaire.flags')}</p>
              <ul>
                {questionnaire.flags.map((f) => (
                  <li key={f}>{f}</li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      )}
    </section>
  );
}
