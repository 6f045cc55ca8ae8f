import { RETRY_DELAYS_MS } from './retry-schedule.ts';

/** How the dispatcher behaves; the defaults are the spec's values, the rest are test and tuning seams. */
export interface WebhookSettings {
  /** Delays before retries 1 to 7 (spec: 10 s … 24 h). Tests shrink them; the count stays seven. */
  retryDelaysMs: readonly number[];
  /** A 2xx must come back within this time (spec: 5 s). */
  timeoutMs: number;
  /** Longest sleep of an idle worker; new events wake it at once through LISTEN/NOTIFY. */
  pollMs: number;
  /** Deliveries in flight at once per worker. */
  concurrency: number;
  /** How long a claimed delivery stays reserved for its worker; after a crash it is sent again once this runs out. */
  leaseMs: number;
  /** Self-hosted installations whose receivers sit on their own private network may allow them (https still required in production). */
  allowPrivateNetworks: boolean;
  /** At most this much of a response body is read (and then dropped). */
  maxResponseBytes: number;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  retryDelaysMs: RETRY_DELAYS_MS,
  timeoutMs: 5_000,
  pollMs: 1_000,
  concurrency: 16,
  leaseMs: 60_000,
  allowPrivateNetworks: false,
  maxResponseBytes: 64 * 1024,
};
