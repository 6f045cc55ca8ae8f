import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../../api/client.ts';
import type { WebhookEndpointListed } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ShownOnce } from '../../components/shown-once.tsx';
import { ErrorNotice, Notice } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { EventChoices } from './event-choices.tsx';

// An endpoint's life in the console: edit, disable and enable, rotate the secret, delete. What
// cannot be undone or changes what the receiver gets (disable, rotate, delete) asks first; each
// write carries a fresh Idempotency-Key, as the console's creations do.

type LifeAction = 'disable' | 'enable' | 'rotate' | 'delete';
/** The confirming button of each action that asks first (enable does not ask). */
const CONFIRM_LABELS = { disable: 'confirm.disable', enable: 'confirm.disable', rotate: 'confirm.rotate', delete: 'confirm.delete' } as const;
type LifeDone =
  | { kind: 'disable' | 'enable'; url: string }
  | { kind: 'rotate'; url: string; secret: string; until: string | null }
  | { kind: 'delete'; url: string; count: number };

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

async function perform(action: LifeAction, endpoint: WebhookEndpointListed): Promise<LifeDone> {
  const params = { header: idem(), path: { endpoint_id: endpoint.id } };
  const url = endpoint.url;
  switch (action) {
    case 'disable':
      await ok(api.POST('/v1/webhook-endpoints/{endpoint_id}/disable', { params }));
      return { kind: 'disable', url };
    case 'enable':
      await ok(api.POST('/v1/webhook-endpoints/{endpoint_id}/enable', { params }));
      return { kind: 'enable', url };
    case 'rotate': {
      const rotated = await ok(api.POST('/v1/webhook-endpoints/{endpoint_id}/rotate-secret', { params, body: {} }));
      return { kind: 'rotate', url, secret: rotated.secret, until: rotated.previous_secret_expires_at };
    }
    case 'delete': {
      const deleted = await ok(api.DELETE('/v1/webhook-endpoints/{endpoint_id}', { params }));
      return { kind: 'delete', url, count: deleted.cancelled_deliveries };
    }
  }
}

/** The actions and their confirmation; `ask` confirms first, except enable (it only resumes sending). */
export function useEndpointLife() {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState<{ action: LifeAction; endpoint: WebhookEndpointListed } | null>(null);
  const run = useMutation({
    mutationFn: ({ action, endpoint }: { action: LifeAction; endpoint: WebhookEndpointListed }) => perform(action, endpoint),
    onSettled: () => {
      setAsking(null);
      void queryClient.invalidateQueries({ queryKey: ['webhook-endpoints'] });
    },
  });
  const ask = (action: LifeAction, endpoint: WebhookEndpointListed) => (action === 'enable' ? run.mutate({ action, endpoint }) : setAsking({ action, endpoint }));
  return { asking, ask, run, cancel: () => setAsking(null) };
}

type Life = ReturnType<typeof useEndpointLife>;

export function LifeButtons({ endpoint, life, onEdit }: { endpoint: WebhookEndpointListed; life: Life; onEdit(): void }) {
  const { t } = useI18n();
  const busy = life.run.isPending;
  const button = (action: LifeAction, label: string, extra = '') => (
    <button type="button" className={`button button-small${extra}`} disabled={busy} onClick={() => life.ask(action, endpoint)} aria-label={`${label} ${endpoint.url}`}>
      {label}
    </button>
  );
  return (
    <>
      <button type="button" className="button button-small" disabled={busy} onClick={onEdit} aria-label={`${t('webhooks.edit')} ${endpoint.url}`}>
        {t('webhooks.edit')}
      </button>
      {endpoint.status === 'disabled' ? button('enable', t('webhooks.enable')) : button('disable', t('webhooks.disable'))}
      {button('rotate', t('webhooks.rotate'))}
      {button('delete', t('webhooks.delete'), ' button-reject')}
    </>
  );
}

export function LifeOutcome({ life }: { life: Life }) {
  const { t, dateTime } = useI18n();
  const done = life.run.data;
  return (
    <>
      <ConfirmDialog
        open={life.asking !== null}
        title={life.asking ? t(`webhooks.${life.asking.action === 'enable' ? 'disable' : life.asking.action}.confirm`, { url: life.asking.endpoint.url }) : ''}
        confirmLabel={life.asking ? t(CONFIRM_LABELS[life.asking.action]) : undefined}
        destructive={life.asking?.action === 'delete' || life.asking?.action === 'disable'}
        busy={life.run.isPending}
        onCancel={life.cancel}
        onConfirm={() => life.asking && life.run.mutate(life.asking)}
      />
      {life.run.isError ? <ErrorNotice error={life.run.error} /> : null}
      {!done ? null : done.kind === 'rotate' ? (
        <div className="stack">
          <Notice kind="success">{t('webhooks.rotated', { url: done.url, time: done.until ? dateTime(done.until) : '—' })}</Notice>
          <ShownOnce label={t('webhooks.secret')} value={done.secret} note={t('webhooks.shownOnce')} />
          <div>
            <button type="button" className="button" onClick={() => life.run.reset()}>
              {t('webhooks.done')}
            </button>
          </div>
        </div>
      ) : done.kind === 'delete' ? (
        <Notice kind="success">{t('webhooks.deleted', { url: done.url, count: done.count })}</Notice>
      ) : (
        <Notice kind="success">{t(done.kind === 'disable' ? 'webhooks.disabled' : 'webhooks.enabled', { url: done.url })}</Notice>
      )}
    </>
  );
}

/** Address, events and description of one endpoint; only what changed is sent. */
export function EditEndpoint({ endpoint, onClose }: { endpoint: WebhookEndpointListed; onClose(): void }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(endpoint.url);
  const [events, setEvents] = useState<string[]>(endpoint.events);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const save = useMutation({
    mutationFn: () => {
      const body: { url?: string; events?: string[]; description?: string | null } = {};
      if (url.trim() !== endpoint.url) body.url = url.trim();
      if (JSON.stringify([...events].sort()) !== JSON.stringify([...endpoint.events].sort())) body.events = events;
      if (description.trim() !== (endpoint.description ?? '')) body.description = description.trim() || null;
      if (Object.keys(body).length === 0) return Promise.resolve(endpoint);
      return ok(api.PATCH('/v1/webhook-endpoints/{endpoint_id}', { params: { header: idem(), path: { endpoint_id: endpoint.id } }, body }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['webhook-endpoints'] });
      onClose();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <section className="panel" aria-labelledby="edit-endpoint-title">
      <h2 id="edit-endpoint-title" className="break">
        {t('webhooks.edit.title', { url: endpoint.url })}
      </h2>
      <form onSubmit={submit}>
        <label className="field">
          <span>{t('webhooks.url')}</span>
          <input name="url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} maxLength={2048} autoComplete="off" inputMode="url" />
        </label>
        <label className="field">
          <span>{t('webhooks.description')}</span>
          <input name="description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} autoComplete="off" />
        </label>
        <EventChoices events={events} onChange={setEvents} />
        <div className="row-actions">
          <button type="submit" className="button button-primary" disabled={save.isPending || events.length === 0}>
            {t('webhooks.save')}
          </button>
          <button type="button" className="button" onClick={onClose}>
            {t('cancel')}
          </button>
        </div>
        {save.isError ? <ErrorNotice error={save.error} /> : null}
      </form>
    </section>
  );
}
