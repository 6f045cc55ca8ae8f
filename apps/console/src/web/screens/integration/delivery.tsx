import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { api, ok } from '../../api/client.ts';
import { ErrorNotice, Loading, Notice, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { DELIVERY_BADGE } from './deliveries.tsx';
import { webhookEndpointsQuery } from './webhook-queries.ts';
import { TableHead } from '../../components/table-head.tsx';

/** The body as sent, indented for reading when it is JSON (it always is; the exact bytes stay in the service). */
function readable(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** One delivery (GET /v1/webhook-deliveries/{id}): its facts, the body sent, every attempt; replay. */
export function DeliveryScreen({ deliveryId }: { deliveryId: string }) {
  const { t, dateTime } = useI18n();
  const queryClient = useQueryClient();
  const delivery = useQuery({
    queryKey: ['webhook-delivery', deliveryId],
    staleTime: 0, // statuses move with every attempt
    queryFn: () => ok(api.GET('/v1/webhook-deliveries/{delivery_id}', { params: { path: { delivery_id: deliveryId } } })),
  });
  const endpoints = useQuery(webhookEndpointsQuery());
  const replay = useMutation({
    mutationFn: () => ok(api.POST('/v1/webhook-deliveries/{delivery_id}/replay', { params: { path: { delivery_id: deliveryId } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] }),
  });
  const title = t('delivery.title', { id: deliveryId });
  return (
    <>
      <PageTitle text={title}>
        <span className="break">{title}</span>
      </PageTitle>
      <p>
        <Link to="/settings/webhooks/deliveries">← {t('deliveries.title')}</Link>
      </p>
      {delivery.isPending ? (
        <Loading />
      ) : delivery.isError ? (
        <ErrorNotice error={delivery.error} onRetry={() => void delivery.refetch()} />
      ) : (
        <>
          <section className="panel" aria-labelledby="delivery-facts">
            <h2 id="delivery-facts" className="visually-hidden">
              {title}
            </h2>
            <dl className="facts">
              <div>
                <dt>{t('deliveries.col.event')}</dt>
                <dd className="mono">{delivery.data.event_type}</dd>
              </div>
              <div>
                <dt>{t('deliveries.col.status')}</dt>
                <dd>
                  <span className={`badge ${DELIVERY_BADGE[delivery.data.status]}`}>{t(`deliveryStatus.${delivery.data.status}`)}</span>
                </dd>
              </div>
              <div>
                <dt>{t('deliveries.col.endpoint')}</dt>
                <dd className="mono break">{endpoints.data?.data.find((e) => e.id === delivery.data.endpoint_id)?.url ?? delivery.data.endpoint_id}</dd>
              </div>
              <div>
                <dt>{t('deliveries.col.created')}</dt>
                <dd>{dateTime(delivery.data.created_at)}</dd>
              </div>
              {delivery.data.delivered_at ? (
                <div>
                  <dt>{t('delivery.deliveredAt')}</dt>
                  <dd>{dateTime(delivery.data.delivered_at)}</dd>
                </div>
              ) : null}
              {delivery.data.next_attempt_at ? (
                <div>
                  <dt>{t('delivery.nextAttempt')}</dt>
                  <dd>{dateTime(delivery.data.next_attempt_at)}</dd>
                </div>
              ) : null}
              {delivery.data.replay_of ? (
                <div>
                  <dt>{t('delivery.replayOf')}</dt>
                  <dd>
                    <Link to="/settings/webhooks/deliveries/$deliveryId" params={{ deliveryId: delivery.data.replay_of }} className="mono break">
                      {delivery.data.replay_of}
                    </Link>
                  </dd>
                </div>
              ) : null}
            </dl>
            <div className="toolbar">
              <button type="button" className="button button-primary" onClick={() => replay.mutate()} disabled={replay.isPending}>
                {t('delivery.replay')}
              </button>
            </div>
            {replay.data ? (
              <Notice kind="success">
                {t('delivery.replayed')}{' '}
                <Link to="/settings/webhooks/deliveries/$deliveryId" params={{ deliveryId: replay.data.id }}>
                  {t('delivery.openReplay')}
                </Link>
              </Notice>
            ) : null}
            {replay.isError ? <ErrorNotice error={replay.error} /> : null}
          </section>
          <section className="panel" aria-labelledby="delivery-body">
            <h2 id="delivery-body">{t('delivery.body')}</h2>
            <pre className="code" tabIndex={0} aria-labelledby="delivery-body">
              {readable(delivery.data.body)}
            </pre>
          </section>
          <section className="panel" aria-labelledby="delivery-attempts">
            <h2 id="delivery-attempts">{t('delivery.attempts')}</h2>
            {delivery.data.attempts.length === 0 ? (
              <p className="muted">{t('delivery.noAttempt')}</p>
            ) : (
              <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="delivery-attempts">
                <table className="table table-cards">
                  <TableHead labels={[t('delivery.col.attempt'), t('delivery.col.started'), t('delivery.col.duration'), t('delivery.col.answer')]} />
                  <tbody>
                    {delivery.data.attempts.map((a) => (
                      <tr key={a.attempt}>
                        <th scope="row">{a.attempt}</th>
                        <td data-label={t('delivery.col.started')}>{dateTime(a.started_at)}</td>
                        <td data-label={t('delivery.col.duration')}>{t('delivery.ms', { ms: a.duration_ms })}</td>
                        <td data-label={t('delivery.col.answer')}>{[a.response_status, a.error].filter((x) => x !== null).join(' · ') || '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </>
  );
}
