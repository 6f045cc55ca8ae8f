import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useActionOutcome } from '../../action-outcome.tsx';
import { api, ok } from '../../api/client.ts';
import type { Operator, OperatorInvited } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { PagedTable, useCursorPages } from '../../components/paged-table.tsx';
import { ShownOnce } from '../../components/shown-once.tsx';
import { ErrorNotice, Notice, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { useSession } from '../../session-context.tsx';
import { ClearanceFields, countriesText, parseCountries, type ClearanceDraft } from './clearance-fields.tsx';

const PAGE = 50;
const COLUMNS: MessageKey[] = [
  'operators.col.name',
  'operators.col.role',
  'operators.col.countries',
  'operators.col.sensitivity',
  'operators.col.status',
  'operators.col.lastConnection',
  'operators.col.actions',
];

/** The invitation as the service answered it, directly or replayed after a re-authentication. */
function isInvitation(body: unknown): body is OperatorInvited {
  const b = body as Partial<OperatorInvited> | null;
  return typeof b?.invitation_token === 'string' && typeof b.operator?.name === 'string';
}

/**
 * Operators (administrator): the list with each clearance and last connection, an invitation
 * whose link is shown once, a clearance change and a revocation. The three writes need a recent
 * re-authentication: the console server then sends the page to the provider and replays the
 * write on the way back; the replayed invitation's link is shown here once (the server gives the
 * outcome once, and the app took its id out of the address).
 */
export function OperatorsScreen() {
  const { t, dateTime } = useI18n();
  const session = useSession();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const list = useQuery({
    queryKey: ['operators', pages.cursor ?? null],
    queryFn: () => ok(api.GET('/v1/operators', { params: { query: { limit: PAGE, starting_after: pages.cursor } } })),
    placeholderData: keepPreviousData,
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['operators'] });
  const [editing, setEditing] = useState<Operator | null>(null);
  const [revoking, setRevoking] = useState<Operator | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const revoke = useMutation({
    mutationFn: (op: Operator) => ok(api.POST('/v1/operators/{target_id}/revoke', { params: { path: { target_id: op.id } } })),
    onSuccess: (_d, op) => setDone(t('operators.revoked', { name: op.name })),
    onSettled: () => {
      setRevoking(null);
      refresh();
    },
  });

  return (
    <>
      <PageTitle text={t('operators.title')}>{t('operators.title')}</PageTitle>
      <p className="muted">{t('operators.intro')}</p>
      {done ? <Notice kind="success">{done}</Notice> : null}
      {revoke.isError ? <ErrorNotice error={revoke.error} /> : null}
      <div className="admin-grid">
        <section aria-labelledby="operators-caption-title">
          <h2 id="operators-caption-title">{t('operators.list')}</h2>
          <PagedTable
            query={list}
            pages={pages}
            empty={t('operators.empty')}
            caption={t('operators.list')}
            captionId="operators-caption"
            columns={COLUMNS.map((c) => t(c))}
            row={(op) => {
              const self = op.id === session.operator.id;
              return (
                <tr key={op.id}>
                  <th scope="row">
                    {op.name}
                    {self ? <span className="muted small"> ({t('operators.you')})</span> : null}
                    {op.email ? <div className="muted small">{op.email}</div> : null}
                  </th>
                  <td data-label={t('operators.col.role')}>{t(`role.${op.role}` as MessageKey)}</td>
                  <td data-label={t('operators.col.countries')}>{op.countries.includes('*') ? t('clearance.countriesAll') : countriesText(op.countries)}</td>
                  <td data-label={t('operators.col.sensitivity')}>{t(`sensitivity.${op.sensitivity}` as MessageKey)}</td>
                  <td data-label={t('operators.col.status')}>{t(`operators.status.${op.status}` as MessageKey)}</td>
                  <td data-label={t('operators.col.lastConnection')}>{op.last_connection_at ? dateTime(op.last_connection_at) : t('operators.never')}</td>
                  <td data-label={t('operators.col.actions')}>
                    {/* The service refuses an administrator's change of their own clearance, and anything on a revoked operator. */}
                    {!self && op.status !== 'revoked' ? (
                      <div className="row-actions">
                        <button type="button" className="button button-small" aria-label={`${t('operators.change')}: ${op.name}`} onClick={() => setEditing(op)}>
                          {t('operators.change')}
                        </button>
                        <button type="button" className="button button-small" aria-label={`${t('operators.revoke')}: ${op.name}`} onClick={() => setRevoking(op)}>
                          {t('operators.revoke')}
                        </button>
                      </div>
                    ) : null}
                  </td>
                </tr>
              );
            }}
          />
        </section>
        <div>
          {editing ? (
            <ClearancePanel
              key={editing.id}
              operator={editing}
              onDone={(name) => {
                setEditing(null);
                setDone(t('operators.changed', { name }));
                refresh();
              }}
              onCancel={() => setEditing(null)}
            />
          ) : null}
          <InvitePanel onInvited={refresh} />
        </div>
      </div>
      <ConfirmDialog
        open={revoking !== null}
        title={revoking ? t('operators.revokeConfirm', { name: revoking.name }) : ''}
        confirmLabel={t('confirm.revoke')}
        destructive
        busy={revoke.isPending}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate(revoking)}
      />
    </>
  );
}

/** Whether this page load's replayed invitation was shown already (it stays in the outcome's cache). */
let replayedInvitationTaken = false;

/**
 * The invitation replayed by the console server after a re-authentication, for the first panel
 * that asks only: leaving the screen and coming back does not show its link again.
 */
function useReplayedInvitation(): OperatorInvited | undefined {
  const replayed = useActionOutcome()?.result;
  const [taken, setTaken] = useState<OperatorInvited>();
  useEffect(() => {
    if (replayedInvitationTaken || !replayed || replayed.status !== 201 || !isInvitation(replayed.body)) return;
    replayedInvitationTaken = true;
    setTaken(replayed.body);
  }, [replayed]);
  return taken;
}

const NEW_CLEARANCE: ClearanceDraft = { role: 'reviewer', countries: '', sensitivity: 'standard' };

function InvitePanel({ onInvited }: { onInvited(): void }) {
  const { t, dateTime } = useI18n();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [clearance, setClearance] = useState(NEW_CLEARANCE);
  const [tried, setTried] = useState(false);
  const invite = useMutation({
    mutationFn: (body: { name: string; email?: string; role: ClearanceDraft['role']; countries: string[]; sensitivity: ClearanceDraft['sensitivity'] }) =>
      ok(api.POST('/v1/operators', { body })),
    onSuccess: () => {
      setName('');
      setEmail('');
      setClearance(NEW_CLEARANCE);
      setTried(false);
      onInvited();
    },
  });
  // An invitation asked before a re-authentication and replayed by the console server on the way back.
  const replayed = useReplayedInvitation();
  const invited = invite.data ?? replayed;
  const countries = parseCountries(clearance.countries);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (!countries || !name.trim()) return;
    invite.mutate({ name: name.trim(), ...(email.trim() ? { email: email.trim() } : {}), role: clearance.role, countries, sensitivity: clearance.sensitivity });
  };
  return (
    <section className="panel" aria-labelledby="invite-title">
      <h2 id="invite-title">{t('operators.invite')}</h2>
      {invited ? (
        <div className="invite-result">
          <Notice kind="success">{t('operators.invited', { name: invited.operator.name })}</Notice>
          <ShownOnce
            label={t('operators.link')}
            value={`${location.origin}/invitation#${invited.invitation_token}`}
            note={t('operators.linkNote', { time: dateTime(invited.invitation_expires_at), name: invited.operator.name })}
          />
        </div>
      ) : null}
      <form onSubmit={submit} noValidate>
        <fieldset disabled={invite.isPending}>
          <label className="field">
            <span>{t('operators.invite.name')}</span>
            <input name="invite_name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} required autoComplete="off" aria-invalid={tried && !name.trim()} />
          </label>
          <label className="field">
            <span>{t('operators.invite.email')}</span>
            <input name="invite_email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} maxLength={254} autoComplete="off" />
          </label>
          <ClearanceFields idPrefix="invite" value={clearance} onChange={setClearance} invalid={tried && !countries} />
          <button type="submit" className="button button-primary">
            {t('operators.invite.submit')}
          </button>
        </fieldset>
      </form>
      {invite.isError ? <ErrorNotice error={invite.error} /> : null}
    </section>
  );
}

function ClearancePanel({ operator, onDone, onCancel }: { operator: Operator; onDone(name: string): void; onCancel(): void }) {
  const { t } = useI18n();
  const [clearance, setClearance] = useState<ClearanceDraft>({ role: operator.role, countries: countriesText(operator.countries), sensitivity: operator.sensitivity });
  const countries = parseCountries(clearance.countries);
  const change = useMutation({
    mutationFn: () =>
      ok(api.PATCH('/v1/operators/{target_id}', { params: { path: { target_id: operator.id } }, body: { role: clearance.role, countries: countries!, sensitivity: clearance.sensitivity } })),
    onSuccess: (op) => onDone(op.name),
  });
  return (
    <section className="panel" aria-labelledby="clearance-title">
      <h2 id="clearance-title">{t('operators.changeOf', { name: operator.name })}</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (countries) change.mutate();
        }}
      >
        <fieldset disabled={change.isPending}>
          <ClearanceFields idPrefix="clearance" value={clearance} onChange={setClearance} invalid={!countries} />
          <div className="row-actions">
            <button type="submit" className="button button-primary" disabled={!countries}>
              {t('operators.change.submit')}
            </button>
            <button type="button" className="button" onClick={onCancel}>
              {t('cancel')}
            </button>
          </div>
        </fieldset>
      </form>
      {change.isError ? <ErrorNotice error={change.error} /> : null}
    </section>
  );
}
