import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../api/client.ts';
import type { operations } from '../api/openapi-types.ts';
import { PagedTable, useCursorPages } from '../components/paged-table.tsx';
import { Empty, PageTitle } from '../components/status.tsx';
import { useI18n } from '../i18n/index.tsx';
import type { MessageKey } from '../i18n/en.ts';

type CaseQuery = NonNullable<operations['listCases']['parameters']['query']>;
const COLUMNS: MessageKey[] = ['search.col.case', 'search.col.ref', 'search.col.status', 'search.col.country', 'search.col.created'];
const CASE_STATUSES = ['created', 'collecting', 'processing', 'review', 'decided', 'abandoned', 'expired'] as const;

/** A day of the date input as the start (or the end) of that day in the operator's time zone. */
const dayStart = (d: string) => (d ? new Date(`${d}T00:00:00`).toISOString() : undefined);
const dayEnd = (d: string) => (d ? new Date(`${d}T23:59:59.999`).toISOString() : undefined);

/**
 * Case search (GET /api/v1/cases, limited by the console server to the operator's clearance).
 * The criteria stay in memory, never in the address: an external reference may say who a person is.
 */
export function SearchScreen() {
  const { t, dateTime } = useI18n();
  const [form, setForm] = useState({ external_ref: '', q: '', status: '', country: '', after: '', before: '' });
  const [criteria, setCriteria] = useState<CaseQuery | null>(null);
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const results = useQuery({
    queryKey: ['cases', criteria, cursor ?? null],
    queryFn: () => ok(api.GET('/v1/cases', { params: { query: { ...criteria, cursor, limit: 20 } } })),
    enabled: criteria !== null,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const q: CaseQuery = {};
    if (form.external_ref.trim()) q.external_ref = form.external_ref.trim();
    if (form.q.trim()) q.q = form.q.trim();
    if (form.status) q.status = form.status as CaseQuery['status'];
    if (form.country.trim()) q.country = form.country.trim().toUpperCase();
    if (form.after) q.created_after = dayStart(form.after);
    if (form.before) q.created_before = dayEnd(form.before);
    pages.first();
    setCriteria(q);
  };
  const set = (name: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value });
  return (
    <>
      <PageTitle text={t('search.title')}>{t('search.title')}</PageTitle>
      <form className="search-form" onSubmit={submit} role="search">
        <label className="field">
          <span>{t('search.external_ref')}</span>
          <input name="external_ref" value={form.external_ref} onChange={set('external_ref')} maxLength={128} autoComplete="off" />
        </label>
        <label className="field">
          <span>{t('search.q')}</span>
          <input name="q" value={form.q} onChange={set('q')} maxLength={128} autoComplete="off" />
        </label>
        <label className="field">
          <span>{t('search.status')}</span>
          <select name="status" value={form.status} onChange={set('status')}>
            <option value="">{t('search.status.any')}</option>
            {CASE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`caseStatus.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>{t('search.country')}</span>
          <input name="country" value={form.country} onChange={set('country')} maxLength={2} pattern="[A-Za-z]{2}" autoComplete="off" className="input-short" />
        </label>
        <label className="field">
          <span>{t('search.created_after')}</span>
          <input type="date" name="created_after" value={form.after} onChange={set('after')} />
        </label>
        <label className="field">
          <span>{t('search.created_before')}</span>
          <input type="date" name="created_before" value={form.before} onChange={set('before')} />
        </label>
        <div className="field field-submit">
          <button type="submit" className="button button-primary">
            {t('search.submit')}
          </button>
        </div>
      </form>
      {criteria === null ? (
        <Empty>{t('search.prompt')}</Empty>
      ) : (
        <PagedTable
          query={results}
          pages={pages}
          empty={t('search.empty')}
          caption={t('search.title')}
          captionId="search-caption"
          columns={COLUMNS.map((c) => t(c))}
          row={(c) => (
            <tr key={c.id}>
              <th scope="row">
                <Link to="/cases/$caseId" params={{ caseId: c.id }} className="mono case-id row-link">
                  {c.id}
                </Link>
              </th>
              <td data-label={t('search.col.ref')} className="cell-wide">
                {c.external_ref ?? '—'}
              </td>
              <td data-label={t('search.col.status')}>{t(`caseStatus.${c.status}` as MessageKey)}</td>
              <td data-label={t('search.col.country')}>{c.country}</td>
              <td data-label={t('search.col.created')}>{dateTime(c.created_at)}</td>
            </tr>
          )}
        />
      )}
    </>
  );
}
