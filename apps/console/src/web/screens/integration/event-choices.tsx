import { useQuery } from '@tanstack/react-query';
import { ErrorNotice, Loading } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { webhookEventsQuery } from './webhook-queries.ts';

/** The events an endpoint receives, one box per event of the service's catalogue (declaring and editing an endpoint). */
export function EventChoices({ events, onChange }: { events: string[]; onChange: (events: string[]) => void }) {
  const { t } = useI18n();
  const catalogue = useQuery(webhookEventsQuery);
  return (
    <fieldset className="steps">
      <legend>{t('webhooks.events')}</legend>
      {catalogue.isPending ? (
        <Loading />
      ) : catalogue.isError ? (
        <ErrorNotice error={catalogue.error} onRetry={() => void catalogue.refetch()} />
      ) : (
        catalogue.data.data.map((ev) => (
          <label key={ev.type} className="field-inline check-line">
            <input
              type="checkbox"
              name="events"
              value={ev.type}
              checked={events.includes(ev.type)}
              onChange={(e) => onChange(e.target.checked ? [...events, ev.type] : events.filter((x) => x !== ev.type))}
            />
            <span>
              <span className="mono">{ev.type}</span>{' '}
              {/* The service's catalogue is written in English (WCAG 3.1.2: its language is said). */}
              <span className="muted small" lang="en">
                {ev.sent_when}
              </span>
            </span>
          </label>
        ))
      )}
    </fieldset>
  );
}
