import { randomUUID } from 'node:crypto';
import { signedHeaders } from './sign-request.ts';

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  signingSecret: string;
  /** Attempts for network errors, 409 in progress, 429 and 5xx; the same Idempotency-Key is reused. */
  maxAttempts?: number;
  /** Longest Retry-After of a 429 or 503 the client waits out before its next attempt (default 60 s); beyond it the refusal is thrown. */
  maxRetryAfterS?: number;
}

/** The error body of every refusal: `{ error: { type, code, message, field?, doc_url, request_id } }`. */
export interface ApiErrorBody {
  error?: { type?: string; code?: string; message?: string; field?: string; doc_url?: string; request_id?: string };
}

/** A response other than 2xx, after the retries: quote `requestId` to the service's operator. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(`${status} ${body.error?.code ?? ''}: ${body.error?.message ?? ''}`);
    this.name = 'ApiRequestError';
  }
  get code(): string | undefined {
    return this.body.error?.code;
  }
  get type(): string | undefined {
    return this.body.error?.type;
  }
  /** The request field at fault, when the refusal names one. */
  get field(): string | undefined {
    return this.body.error?.field;
  }
  get requestId(): string | undefined {
    return this.body.error?.request_id;
  }
}

/**
 * A small client for integrators: bearer key on every call; signed creations carry a fresh
 * Idempotency-Key per intention, kept across retries so a retry never creates twice.
 */
export class IdvClient {
  constructor(private readonly options: ClientOptions) {}

  async request<T>(method: string, target: string, body?: unknown, opts: { signed?: boolean; idempotencyKey?: string } = {}): Promise<T> {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const idempotencyKey = opts.idempotencyKey ?? randomUUID();
    const attempts = this.options.maxAttempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = { authorization: `Bearer ${this.options.apiKey}` };
      if (raw) headers['content-type'] = 'application/json';
      if (opts.signed) Object.assign(headers, signedHeaders(this.options.signingSecret, method, target, raw, idempotencyKey));
      let res: Response;
      try {
        res = await fetch(this.options.baseUrl + target, { method, headers, body: raw || undefined, redirect: 'manual' });
      } catch (err) {
        if (attempt >= attempts) throw err;
        await delay(attempt);
        continue;
      }
      const text = await res.text();
      const parsed = text ? JSON.parse(text) : undefined;
      if (res.ok) return parsed as T;
      const retryAfter = res.headers.get('retry-after');
      if ((res.status === 429 || (res.status === 503 && retryAfter !== null)) && attempt < attempts) {
        // The limit's window must end first (429), or the service its outage (503 while its
        // database is away): retrying sooner would only be refused again. Longer than the caller
        // may wait, the refusal is theirs to handle now.
        const after = Number(retryAfter ?? 1);
        if (!(Number.isFinite(after) && after >= 0 && after <= (this.options.maxRetryAfterS ?? 60))) throw new ApiRequestError(res.status, parsed ?? {});
        await new Promise((r) => setTimeout(r, after * 1000));
        continue;
      }
      const retriable = res.status === 409 && parsed?.error?.code === 'idempotency_request_in_progress';
      if ((retriable || res.status >= 500) && attempt < attempts) {
        await delay(attempt);
        continue;
      }
      throw new ApiRequestError(res.status, parsed ?? {});
    }
  }

  createCase(body: { flow_name: string; country: string; external_ref?: string; declared?: Record<string, string> }) {
    return this.request<{ id: string; status: string; expires_at: string }>('POST', '/v1/cases', body, { signed: true });
  }

  getCase(id: string) {
    return this.request<Record<string, unknown>>('GET', `/v1/cases/${encodeURIComponent(id)}`);
  }

  createSession(body: { case_id: string; locale?: string }) {
    return this.request<{ id: string; url: string; expires_at: string }>('POST', '/v1/sessions', body, { signed: true });
  }

  /** The response carries the signing secret, once: keep it for verifyWebhook. */
  createWebhookEndpoint(body: { url: string; events: string[] }) {
    return this.request<{ id: string; url: string; events: string[]; status: string; secret: string }>(
      'POST',
      '/v1/webhook-endpoints',
      body,
      { signed: true },
    );
  }

  sendWebhookTest(endpointId: string) {
    return this.request<{ id: string; status: string }>('POST', `/v1/webhook-endpoints/${encodeURIComponent(endpointId)}/test`);
  }

  resumeWebhookEndpoint(endpointId: string) {
    return this.request<{ id: string; status: string }>('POST', `/v1/webhook-endpoints/${encodeURIComponent(endpointId)}/resume`);
  }

  getWebhookDelivery(deliveryId: string) {
    return this.request<{ id: string; status: string; body: string; attempt_count: number }>(
      'GET',
      `/v1/webhook-deliveries/${encodeURIComponent(deliveryId)}`,
    );
  }

  replayWebhookDelivery(deliveryId: string) {
    return this.request<{ id: string; replay_of: string }>('POST', `/v1/webhook-deliveries/${encodeURIComponent(deliveryId)}/replay`);
  }
}

function delay(attempt: number): Promise<void> {
  return new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
}
