import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { useActionOutcome } from '../../action-outcome.tsx';
import { api, ok } from '../../api/client.ts';
import type { SupportGrant } from '../../api/types.ts';
import { Actor } from '../../components/actor.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { PagedTable, useCursorPages } from '../../components/paged-table.tsx';
import { ErrorNotice, Notice, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { useSession } from '../../session-context.tsx';

const COLUMNS: MessageKey[] = [
  'supportAccess.col.case',
  'supportAccess.col.account',
  'supportAccess.col.reason',
  'supportAccess.col.status',
  'supportAccess.col.grantedBy',
  'supportAccess.col.period',
  'supportAccess.col.actions',
];

const isGrant = (body: unknown): body is SupportGrant => (body as SupportGrant | null)?.object === 'support_grant';

/**
 * The accounts a grant may go to. An administrator reads the operators with their role and is
 * offered the active support accounts only; a supervisor may not read clearances, so is offered
 * the directory's names, and the service refuses anyone but a support account
 * (support_account_invalid).
 */
function useSupportAccounts(): { id: string; name: string }[] {
  const admin = useSession().operator.role === 'administrator';
  const operators = useQuery({
    queryKey: ['operators', 'support-accounts'],
    queryFn: () => ok(api.GET('/v1/operators', { params: { query: { limit: 100 } } })),
    enabled: admin,
  });
  const directory = useQuery({ queryKey: ['operator-directory'], queryFn: () => ok(api.GET('/v1/operators/directory')), enabled: !admin, staleTime: 5 * 60_000 });
  if (admin) return (operators.data?.data ?? []).filter((o) => o.role === 'support' && o.status === 'active');
  return directory.data?.data ?? [];
}

/**
 * Support access (administrator, supervisor): opens a case in review to one of the provider's
 * support accounts for four hours with a reason (a re-authentication: the console server replays
 * the opening on the way back from the provider), lists every grant with its status, closes one
 * early. Each grant links to the case record, whose journal shows what the support account read.
 */
export function SupportAccessScreen() {
  const { t, dateTime } = useI18n();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const grants = useQuery({
    queryKey: ['support-grants', pages.cursor ?? null],
    queryFn: () => ok(api.GET('/v1/support-access', { params: { query: { limit: 20, cursor: pages.cursor } } })),
    placeholderData: keepPreviousData,
  });
  const accounts = useSupportAccounts();
  const nameOf = (id: string) => accounts.find((a) => a.id === id)?.name;
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['support-grants'] });
  const [closing, setClosing] = useState<SupportGrant | null>(null);
  const close = useMutation({
    mutationFn: (g: SupportGrant) => ok(api.POST('/v1/support-access/{grant_id}/revoke', { params: { path: { grant_id: g.id } } })),
    onSettled: () => {
      setClosing(null);
      refresh();
    },
  });

  return (
    <>
      <PageTitle text={t('supportAccess.title')}>{t('supportAccess.title')}</PageTitle>
      <p className="muted">{t('supportAccess.intro')}</p>
      {close.isSuccess ? <Notice kind="success">{t('supportAccess.closed')}</Notice> : null}
      {close.isError ? <ErrorNotice error={close.error} /> : null}
      <div className="admin-grid">
        <section aria-labelledby="grants-title">
          <h2 id="grants-title">{t('supportAccess.list')}</h2>
          <p className="small muted">{t('supportAccess.logHint')}</p>
          <PagedTable
            query={grants}
            pages={pages}
            empty={t('supportAccess.empty')}
            caption={t('supportAccess.list')}
            captionId="grants-caption"
            columns={COLUMNS.map((c) => t(c))}
            row={(g) => (
              <tr key={g.id}>
                <th scope="row">
                  <Link to="/cases/$caseId" params={{ caseId: g.case_id }} className="mono" aria-label={`${t('supportAccess.log')}: ${g.case_id}`}>
                    {g.case_id}
                  </Link>
                </th>
                <td data-label={t('supportAccess.col.account')}>
                  <Actor actor={`op:${g.operator_id}`} />
                </td>
                <td data-label={t('supportAccess.col.reason')} className="cell-wide">
                  {g.reason ?? <span className="muted">{t('supportAccess.hidden')}</span>}
                </td>
                <td data-label={t('supportAccess.col.status')}>{t(`supportAccess.status.${g.status}` as MessageKey)}</td>
                <td data-label={t('supportAccess.col.grantedBy')}>
                  <Actor actor={g.granted_by} />
                </td>
                <td data-label={t('supportAccess.col.period')}>
                  {dateTime(g.created_at)}
                  <br />
                  <span className="small">
                    {g.revoked_at ? t('supportAccess.closedAt', { time: dateTime(g.revoked_at) }) : t('supportAccess.until', { time: dateTime(g.expires_at) })}
                  </span>
                </td>
                <td data-label={t('supportAccess.col.actions')}>
                  {g.status === 'active' ? (
                    <button type="button" className="button button-small" aria-label={`${t('supportAccess.close')}: ${g.case_id}`} onClick={() => setClosing(g)}>
                      {t('supportAccess.close')}
                    </button>
                  ) : null}
                </td>
              </tr>
            )}
          />
        </section>
        <OpenGrantPanel accounts={accounts} nameOf={nameOf} onOpened={refresh} />
      </div>
      <ConfirmDialog open={closing !== null} title={t('supportAccess.closeConfirm')} confirmLabel={t('confirm.closeGrant')} destructive busy={close.isPending} onCancel={() => setClosing(null)} onConfirm={() => closing && close.mutate(closing)} />
    </>
  );
}

function OpenGrantPanel({ accounts, nameOf, onOpened }: { accounts: { id: string; name: string }[]; nameOf(id: string): string | undefined; onOpened(): void }) {
  const { t, dateTime } = useI18n();
  const [form, setForm] = useState({ case_id: '', operator_id: '', reason: '' });
  const open = useMutation({
    mutationFn: () => ok(api.POST('/v1/support-access', { body: { case_id: form.case_id.trim(), operator_id: form.operator_id, reason: form.reason.trim() } })),
    onSuccess: () => {
      setForm({ case_id: '', operator_id: '', reason: '' });
      onOpened();
    },
  });
  // A grant asked before a re-authentication, opened by the console server on the way back.
  const replayed = useActionOutcome()?.result;
  const opened = open.data ?? (replayed && replayed.status === 201 && isGrant(replayed.body) ? replayed.body : undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (form.case_id.trim() && form.operator_id && form.reason.trim()) open.mutate();
  };
  const set = (name: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value });
  return (
    <section className="panel" aria-labelledby="grant-title">
      <h2 id="grant-title">{t('supportAccess.open')}</h2>
      {opened ? (
        <Notice kind="success">{t('supportAccess.opened', { name: nameOf(opened.operator_id) ?? opened.operator_id, time: dateTime(opened.expires_at) })}</Notice>
      ) : null}
      <form onSubmit={submit}>
        <fieldset disabled={open.isPending}>
          <label className="field">
            <span>{t('supportAccess.case')}</span>
            <input name="grant_case" value={form.case_id} onChange={set('case_id')} maxLength={64} required pattern="case_[A-Za-z0-9]+" autoComplete="off" className="mono" />
          </label>
          <label className="field field-with-hint">
            <span>{t('supportAccess.account')}</span>
            <select name="grant_account" value={form.operator_id} onChange={set('operator_id')} required aria-describedby="grant-account-hint">
              <option value="">{t('supportAccess.choose')}</option>
              {accounts.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          </label>
          <small id="grant-account-hint" className="field-hint muted">
            {t('supportAccess.accountHint')}
          </small>
          <label className="field">
            <span>{t('supportAccess.reason')}</span>
            <textarea name="grant_reason" value={form.reason} onChange={set('reason')} maxLength={500} rows={3} required />
          </label>
          <button type="submit" className="button button-primary">
            {t('supportAccess.submit')}
          </button>
        </fieldset>
      </form>
      {open.isError ? <ErrorNotice error={open.error} /> : null}
    </section>
  );
}
