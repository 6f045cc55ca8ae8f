import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../api/client.ts';
import type { operations } from '../api/openapi-types.ts';
import { PagedTable, useCursorPages } from '../components/paged-table.tsx';
import { PageTitle } from '../components/status.tsx';
import { CASE_STATES } from '../domain.ts';
import { useI18n } from '../i18n/index.tsx';
import type { MessageKey } from '../i18n/en.ts';
import { decisionReasonWords } from '../i18n/reasons.ts';
import { useSession } from '../session-context.tsx';

type CaseQuery = NonNullable<operations['listCases']['parameters']['query']>;
type Filters = Omit<CaseQuery, 'limit' | 'cursor'>;
const COLUMNS: MessageKey[] = [
  'search.col.case',
  'search.col.ref',
  'search.col.state',
  'search.col.outcome',
  'search.col.flow',
  'search.col.country',
  'search.col.created',
];
const EMPTY_FORM = { ref: '', state: '', flow: '', country: '', after: '', before: '' };

/** A day of the date input as the start (or the end) of that day in the operator's time zone. */
const dayStart = (d: string) => (d ? new Date(`${d}T00:00:00`).toISOString() : undefined);
const dayEnd = (d: string) => (d ? new Date(`${d}T23:59:59.999`).toISOString() : undefined);

function filtersOf(form: typeof EMPTY_FORM): Filters {
  const q: Filters = {};
  // One box: the service matches a reference or a case id by its beginning (a whole one included).
  if (form.ref.trim()) q.q = form.ref.trim();
  if (form.state) q.state = form.state as Filters['state'];
  if (form.flow.trim()) q.flow_name = form.flow.trim().toLowerCase();
  if (form.country.trim()) q.country = form.country.trim().toUpperCase();
  if (form.after) q.created_after = dayStart(form.after);
  if (form.before) q.created_before = dayEnd(form.before);
  return q;
}

/** The export's address: the same filters as the list, answered by the service as a CSV download. */
const exportHref = (f: Filters) => `/api/v1/cases/export${Object.keys(f).length ? `?${new URLSearchParams(f as Record<string, string>)}` : ''}`;

/**
 * Every case of the client within the operator's clearance (GET /api/v1/cases), newest first, with
 * filters, each case's own state and its outcome, and the selection as CSV. The filters stay in
 * memory, never in the page's address: a reference may say who a person is.
 */
export function SearchScreen() {
  const { t, locale, dateTime } = useI18n();
  const environment = useSession().environment;
  const [form, setForm] = useState(EMPTY_FORM);
  const [filters, setFilters] = useState<Filters>({});
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const results = useQuery({
    queryKey: ['cases', filters, cursor ?? null],
    queryFn: () => ok(api.GET('/v1/cases', { params: { query: { ...filters, cursor, limit: 20 } } })),
  });
  const apply = (next: typeof EMPTY_FORM) => {
    pages.first();
    setFilters(filtersOf(next));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply(form);
  };
  const set = (name: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value });
  return (
    <>
      <PageTitle text={t('search.title')}>{t('search.title')}</PageTitle>
      <form className="search-form" onSubmit={submit} role="search" aria-label={t('search.title')}>
        <label className="field field-ref">
          <span>{t('search.ref')}</span>
          <input name="ref" type="search" value={form.ref} onChange={set('ref')} maxLength={128} autoComplete="off" />
        </label>
        <label className="field">
          <span>{t('search.state')}</span>
          <select name="state" value={form.state} onChange={set('state')}>
            <option value="">{t('search.state.any')}</option>
            {CASE_STATES.map((s) => (
              <option key={s} value={s}>
                {t(`state.${s}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>{t('search.flow')}</span>
          <input name="flow" value={form.flow} onChange={set('flow')} maxLength={64} pattern="[A-Za-z][A-Za-z0-9_\-]{0,63}" autoComplete="off" />
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
        <div className="field field-submit search-actions">
          <button type="submit" className="button button-primary">
            {t('search.submit')}
          </button>
          <button
            type="button"
            className="button button-quiet"
            onClick={() => {
              setForm(EMPTY_FORM);
              apply(EMPTY_FORM);
            }}
          >
            {t('search.reset')}
          </button>
        </div>
      </form>
      <div className="toolbar">
        <a className="button" href={exportHref(filters)} download={`cases-${environment}.csv`} aria-describedby="cases-export-note">
          {t('search.export')}
        </a>
        <span id="cases-export-note" className="small muted">
          {t('search.exportNote')}
        </span>
      </div>
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
            <td data-label={t('search.col.state')}>{t(`state.${c.state}` as MessageKey)}</td>
            <td data-label={t('search.col.outcome')} className="cell-wide">
              {c.decision ? (
                <>
                  <span className={c.decision.outcome === 'approved' ? 'badge badge-ok' : 'badge badge-failed'}>{t(`state.${c.decision.outcome}` as MessageKey)}</span>
                  {c.decision.reason_code ? <span className="small"> {decisionReasonWords(c.decision.reason_code, locale)}</span> : null}
                </>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
            <td data-label={t('search.col.flow')}>{`${c.flow_name} v${c.flow_version}`}</td>
            <td data-label={t('search.col.country')}>{c.country}</td>
            <td data-label={t('search.col.created')}>{dateTime(c.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}
