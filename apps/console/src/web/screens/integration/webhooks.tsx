import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../../api/client.ts';
import type { WebhookDelivery, WebhookEndpointListed } from '../../api/types.ts';
import { PagedTable, useCursorPages } from '../../components/paged-table.tsx';
import { ShownOnce } from '../../components/shown-once.tsx';
import { ErrorNotice, Notice, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { EventChoices } from './event-choices.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { webhookEndpointsQuery } from './webhook-queries.ts';
import { EditEndpoint, LifeButtons, LifeOutcome, useEndpointLife } from './endpoint-life.tsx';

const COLUMNS: MessageKey[] = ['webhooks.col.url', 'webhooks.col.health', 'webhooks.col.recent', 'webhooks.col.events', 'webhooks.col.actions'];

/** An endpoint's health at a glance, from its status and its deliveries of the last 24 hours. */
export function endpointHealth(e: WebhookEndpointListed): 'suspended' | 'disabled' | 'failing' | 'ok' {
  if (e.status === 'suspended') return 'suspended';
  if (e.status === 'disabled') return 'disabled';
  return e.recent_deliveries.failed > 0 || e.recent_deliveries.retrying > 0 ? 'failing' : 'ok';
}
const HEALTH_BADGE = { suspended: 'badge-failed', disabled: 'badge-muted', failing: 'badge-attention', ok: 'badge-ok' } as const;

/**
 * Webhook endpoints (through the console, for administrators): each with its health, a test and a
 * resume; a new one from the event catalogue, its signing secret shown once. The delivery log is
 * the next screen.
 */
export function WebhooksScreen() {
  const { t } = useI18n();
  return (
    <>
      <PageTitle text={t('webhooks.title')}>{t('webhooks.title')}</PageTitle>
      <p className="muted">{t('webhooks.intro')}</p>
      <p>
        <Link to="/settings/webhooks/deliveries" className="button">
          {t('webhooks.log')}
        </Link>
      </p>
      <EndpointList />
      <NewEndpoint />
    </>
  );
}

function NewEndpoint() {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: () =>
      ok(api.POST('/v1/webhook-endpoints', { params: { header: { 'idempotency-key': crypto.randomUUID() } }, body: { url: url.trim(), events } })),
    onSuccess: () => {
      setUrl('');
      setEvents([]);
      void queryClient.invalidateQueries({ queryKey: ['webhook-endpoints'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section className="panel" aria-labelledby="new-endpoint-title">
      <h2 id="new-endpoint-title">{t('webhooks.new')}</h2>
      {create.data ? (
        <div className="stack">
          <Notice kind="success">{t('webhooks.created')}</Notice>
          <ShownOnce label={t('webhooks.secret')} value={create.data.secret} note={t('webhooks.shownOnce')} />
          <div>
            <button type="button" className="button" onClick={() => create.reset()}>
              {t('webhooks.done')}
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit}>
          <label className="field">
            <span>{t('webhooks.url')}</span>
            <input name="url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} maxLength={2048} autoComplete="off" inputMode="url" />
          </label>
          <EventChoices events={events} onChange={setEvents} />
          <button type="submit" className="button button-primary" disabled={create.isPending || events.length === 0}>
            {t('webhooks.create')}
          </button>
          {create.isError ? <ErrorNotice error={create.error} /> : null}
        </form>
      )}
    </section>
  );
}

/** What the last action on an endpoint gave: a test sent (with its delivery) or a resume. */
type Done = { kind: 'tested'; url: string; delivery: WebhookDelivery } | { kind: 'resumed'; url: string };

function EndpointList() {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const pages = useCursorPages();
  const endpoints = useQuery(webhookEndpointsQuery(pages.cursor));
  const life = useEndpointLife();
  const [editing, setEditing] = useState<WebhookEndpointListed | null>(null);
  const act = useMutation({
    mutationFn: async ({ endpoint, action }: { endpoint: WebhookEndpointListed; action: 'test' | 'resume' }): Promise<Done> => {
      const path = { endpoint_id: endpoint.id };
      if (action === 'test') return { kind: 'tested', url: endpoint.url, delivery: await ok(api.POST('/v1/webhook-endpoints/{endpoint_id}/test', { params: { path } })) };
      await ok(api.POST('/v1/webhook-endpoints/{endpoint_id}/resume', { params: { path } }));
      return { kind: 'resumed', url: endpoint.url };
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['webhook-endpoints'] }),
  });
  return (
    <section aria-labelledby="endpoints-title">
      <h2 id="endpoints-title">{t('webhooks.endpoints')}</h2>
      {act.data?.kind === 'tested' ? (
        <Notice kind="success">
          {t('webhooks.tested', { url: act.data.url })}{' '}
          <Link to="/settings/webhooks/deliveries/$deliveryId" params={{ deliveryId: act.data.delivery.id }}>
            {t('webhooks.seeDelivery')}
          </Link>
        </Notice>
      ) : act.data?.kind === 'resumed' ? (
        <Notice kind="success">{t('webhooks.resumed', { url: act.data.url })}</Notice>
      ) : null}
      {act.isError ? <ErrorNotice error={act.error} /> : null}
      <LifeOutcome life={life} />
      {editing ? <EditEndpoint key={editing.id} endpoint={editing} onClose={() => setEditing(null)} /> : null}
      <PagedTable
        query={endpoints}
        pages={pages}
        empty={t('webhooks.empty')}
        caption={t('webhooks.endpoints')}
        captionId="endpoints-caption"
        columns={COLUMNS.map((c) => t(c))}
        row={(e) => {
          const health = endpointHealth(e);
          return (
            <tr key={e.id}>
              <th scope="row" className="cell-wide">
                <span className="mono break">{e.url}</span>
                {e.description ? <span className="endpoint-note muted small break">{e.description}</span> : null}
              </th>
              <td data-label={t('webhooks.col.health')}>
                <span className={`badge ${HEALTH_BADGE[health]}`}>{t(`webhooks.health.${health}`)}</span>
              </td>
              <td data-label={t('webhooks.col.recent')} className="small">
                {t('webhooks.recent', { ...e.recent_deliveries })}
              </td>
              <td data-label={t('webhooks.col.events')}>
                {e.events.map((ev) => (
                  <span key={ev} className="mono perm">
                    {ev}
                  </span>
                ))}
              </td>
              <td data-label={t('webhooks.col.actions')}>
                <div className="row-actions">
                  {e.status === 'suspended' ? (
                    <button type="button" className="button button-small button-primary" disabled={act.isPending} onClick={() => act.mutate({ endpoint: e, action: 'resume' })} aria-label={`${t('webhooks.resume')} ${e.url}`}>
                      {t('webhooks.resume')}
                    </button>
                  ) : e.status === 'active' ? (
                    <button type="button" className="button button-small" disabled={act.isPending} onClick={() => act.mutate({ endpoint: e, action: 'test' })} aria-label={`${t('webhooks.test')} ${e.url}`}>
                      {t('webhooks.test')}
                    </button>
                  ) : null}
                  <Link to="/settings/webhooks/deliveries" search={{ endpoint: e.id }} className="button button-small" aria-label={`${t('webhooks.deliveries')} ${e.url}`}>
                    {t('webhooks.deliveries')}
                  </Link>
                  <LifeButtons endpoint={e} life={life} onEdit={() => setEditing(e)} />
                </div>
              </td>
            </tr>
          );
        }}
      />
    </section>
  );
}
