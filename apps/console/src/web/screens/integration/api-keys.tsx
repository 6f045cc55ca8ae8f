import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../../api/client.ts';
import type { ApiKey } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { PagedTable, useCursorPages } from '../../components/paged-table.tsx';
import { ShownOnce } from '../../components/shown-once.tsx';
import { ErrorNotice, Notice, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';

const PERMISSIONS = ['personal_data', 'decisions'] as const;
type Permission = (typeof PERMISSIONS)[number];
const COLUMNS: MessageKey[] = ['keys.col.name', 'keys.col.key', 'keys.col.kind', 'keys.col.permissions', 'keys.col.created', 'keys.col.status', 'keys.col.actions'];

/**
 * The client's API keys in this environment (GET/POST/DELETE /v1/api-keys through the console, for
 * administrators). A new key's secrets live only in this screen's mutation: leaving the screen or
 * reloading forgets them, and the service never returns them again.
 */
export function ApiKeysScreen() {
  const { t } = useI18n();
  return (
    <>
      <PageTitle text={t('keys.title')}>{t('keys.title')}</PageTitle>
      <p className="muted">{t('keys.intro')}</p>
      <NewKey />
      <KeyList />
    </>
  );
}

function NewKey() {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<Permission[]>([]);
  const create = useMutation({
    mutationFn: () => ok(api.POST('/v1/api-keys', { body: { name: name.trim() || undefined, permissions } })),
    onSuccess: () => {
      setName('');
      setPermissions([]);
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section className="panel" aria-labelledby="new-key-title">
      <h2 id="new-key-title">{t('keys.new')}</h2>
      {create.data ? (
        <div className="stack">
          <Notice kind="success">{t('keys.created', { id: create.data.id })}</Notice>
          <ShownOnce label={t('keys.secret')} value={create.data.secret} note={t('keys.shownOnce')} />
          <ShownOnce label={t('keys.signingSecret')} value={create.data.signing_secret} />
          <div>
            <button type="button" className="button" onClick={() => create.reset()}>
              {t('keys.done')}
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit}>
          <label className="field">
            <span>{t('keys.name')}</span>
            <input name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} autoComplete="off" />
          </label>
          <fieldset className="steps">
            <legend>{t('keys.permissions')}</legend>
            {PERMISSIONS.map((p) => (
              <label key={p} className="field-inline check-line">
                <input
                  type="checkbox"
                  name="permissions"
                  value={p}
                  checked={permissions.includes(p)}
                  onChange={(e) => setPermissions(e.target.checked ? [...permissions, p] : permissions.filter((x) => x !== p))}
                />
                <span>{t(`keys.perm.${p}`)}</span>
              </label>
            ))}
          </fieldset>
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {t('keys.create')}
          </button>
          {create.isError ? <ErrorNotice error={create.error} /> : null}
        </form>
      )}
    </section>
  );
}

function KeyList() {
  const { t, dateTime } = useI18n();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const keys = useQuery({
    queryKey: ['api-keys', cursor ?? null],
    queryFn: () => ok(api.GET('/v1/api-keys', { params: { query: { limit: 20, starting_after: cursor } } })),
  });
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const revoke = useMutation({
    mutationFn: (key: ApiKey) => ok(api.DELETE('/v1/api-keys/{key_id}', { params: { path: { key_id: key.id } } })).then(() => key),
    onSettled: () => {
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const nameOf = (k: ApiKey) => k.name ?? k.secret_prefix;
  return (
    <section aria-labelledby="keys-list-title">
      <h2 id="keys-list-title">{t('keys.title')}</h2>
      {revoke.isSuccess ? <Notice kind="success">{t('keys.revoked', { name: nameOf(revoke.data) })}</Notice> : null}
      {revoke.isError ? <ErrorNotice error={revoke.error} /> : null}
      <PagedTable
        query={keys}
        pages={pages}
        empty={t('keys.empty')}
        caption={t('keys.title')}
        captionId="keys-caption"
        columns={COLUMNS.map((c) => t(c))}
        row={(k) => (
          <tr key={k.id} className={k.revoked_at ? 'row-muted' : undefined}>
            <th scope="row">{k.name ?? <span className="muted">{t('keys.unnamed')}</span>}</th>
            <td data-label={t('keys.col.key')}>
              <span className="mono">{k.secret_prefix}…</span> <span className="muted small">{t(k.environment === 'prod' ? 'env.prod' : 'env.sandbox')}</span>
            </td>
            <td data-label={t('keys.col.kind')}>{t(`keys.kind.${k.kind}`)}</td>
            <td data-label={t('keys.col.permissions')}>{k.permissions.length ? k.permissions.map((p) => <span key={p} className="mono perm">{p}</span>) : t('none')}</td>
            <td data-label={t('keys.col.created')}>{dateTime(k.created_at)}</td>
            <td data-label={t('keys.col.status')}>
              {k.revoked_at ? <span className="badge badge-failed">{t('keys.revokedAt', { time: dateTime(k.revoked_at) })}</span> : <span className="badge badge-ok">{t('keys.active')}</span>}
            </td>
            <td data-label={t('keys.col.actions')}>
              {k.revoked_at ? null : k.kind === 'console' ? (
                <span className="muted small">{t('keys.consoleNote')}</span>
              ) : (
                <button type="button" className="button button-small button-reject" aria-label={t('keys.revoke', { name: nameOf(k) })} onClick={() => setRevoking(k)}>
                  {t('keys.revokeButton')}
                </button>
              )}
            </td>
          </tr>
        )}
      />
      <ConfirmDialog
        open={revoking !== null}
        title={revoking ? t('keys.revoke.confirm', { name: nameOf(revoking) }) : ''}
        confirmLabel={t('confirm.revoke')}
        destructive
        busy={revoke.isPending}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate(revoking)}
      />
    </section>
  );
}
