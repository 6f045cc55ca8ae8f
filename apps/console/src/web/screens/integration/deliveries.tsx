import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { api, ok } from '../../api/client.ts';
import type { operations } from '../../api/openapi-types.ts';
import { PagedTable, useCursorPages } from '../../components/paged-table.tsx';
import { PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { webhookEndpointsQuery, webhookEventsQuery } from './webhook-queries.ts';

type DeliveryQuery = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;
export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed', 'cancelled'] as const;
export const DELIVERY_BADGE = { pending: 'badge-attention', retrying: 'badge-attention', succeeded: 'badge-ok', failed: 'badge-failed', cancelled: 'badge-muted' } as const;
const DAYS = [1, 7, 14, 30] as const;
const COLUMNS: MessageKey[] = [
  'deliveries.col.delivery',
  'deliveries.col.event',
  'deliveries.col.endpoint',
  'deliveries.col.status',
  'deliveries.col.attempts',
  'deliveries.col.response',
  'deliveries.col.created',
];

/**
 * The delivery log of every endpoint (GET /v1/webhook-deliveries) with the service's filters:
 * status, event type, endpoint and the last N days; newest first, by cursor.
 */
export function DeliveriesScreen({ endpoint }: { endpoint?: string }) {
  const { t, dateTime } = useI18n();
  const catalogue = useQuery(webhookEventsQuery);
  const endpoints = useQuery(webhookEndpointsQuery());
  const [form, setForm] = useState({ status: '', event_type: '', endpoint_id: endpoint ?? '', days: '7' });
  const [criteria, setCriteria] = useState<DeliveryQuery>(() => (endpoint ? { endpoint_id: endpoint, days: 7 } : { days: 7 }));
  const pages = useCursorPages();
  const cursor = pages.cursor;
  const log = useQuery({
    queryKey: ['webhook-deliveries', criteria, cursor ?? null],
    staleTime: 0, // statuses move with every attempt
    queryFn: () => ok(api.GET('/v1/webhook-deliveries', { params: { query: { ...criteria, starting_after: cursor, limit: 20 } } })),
  });
  const urlOf = (id: string) => endpoints.data?.data.find((e) => e.id === id)?.url ?? id;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const q: DeliveryQuery = { days: Number(form.days) };
    if (form.status) q.status = form.status as DeliveryQuery['status'];
    if (form.event_type) q.event_type = form.event_type;
    if (form.endpoint_id) q.endpoint_id = form.endpoint_id;
    pages.first();
    setCriteria(q);
  };
  const set = (name: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [name]: e.target.value });
  return (
    <>
      <PageTitle text={t('deliveries.title')}>{t('deliveries.title')}</PageTitle>
      <p>
        <Link to="/settings/webhooks">← {t('deliveries.back')}</Link>
      </p>
      <form className="search-form" onSubmit={submit} role="search">
        <label className="field">
          <span>{t('deliveries.status')}</span>
          <select name="status" value={form.status} onChange={set('status')}>
            <option value="">{t('deliveries.any')}</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`deliveryStatus.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>{t('deliveries.eventType')}</span>
          <select name="event_type" value={form.event_type} onChange={set('event_type')}>
            <option value="">{t('deliveries.any')}</option>
            {catalogue.data?.data.map((ev) => (
              <option key={ev.type} value={ev.type}>
                {ev.type}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>{t('deliveries.endpoint')}</span>
          <select name="endpoint_id" value={form.endpoint_id} onChange={set('endpoint_id')}>
            <option value="">{t('deliveries.any')}</option>
            {endpoints.data?.data.map((e) => (
              <option key={e.id} value={e.id}>
                {e.url}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>{t('deliveries.days')}</span>
          <select name="days" value={form.days} onChange={set('days')}>
            {DAYS.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
        <div className="field field-submit">
          <button type="submit" className="button button-primary">
            {t('deliveries.filter')}
          </button>
        </div>
      </form>
      <PagedTable
        query={log}
        pages={pages}
        empty={t('deliveries.empty')}
        caption={t('deliveries.title')}
        captionId="deliveries-caption"
        columns={COLUMNS.map((c) => t(c))}
        row={(d) => (
          <tr key={d.id}>
            <th scope="row">
              <Link to="/settings/webhooks/deliveries/$deliveryId" params={{ deliveryId: d.id }} className="mono row-link">
                {d.id}
              </Link>
            </th>
            <td data-label={t('deliveries.col.event')} className="mono">
              {d.event_type}
            </td>
            <td data-label={t('deliveries.col.endpoint')} className="cell-wide">
              <span className="mono break">{urlOf(d.endpoint_id)}</span>
            </td>
            <td data-label={t('deliveries.col.status')}>
              <span className={`badge ${DELIVERY_BADGE[d.status]}`}>{t(`deliveryStatus.${d.status}`)}</span>
            </td>
            <td data-label={t('deliveries.col.attempts')}>{d.attempt_count}</td>
            <td data-label={t('deliveries.col.response')}>{d.last_response_status ?? d.last_error ?? '—'}</td>
            <td data-label={t('deliveries.col.created')}>{dateTime(d.created_at)}</td>
          </tr>
        )}
      />
    </>
  );
}
