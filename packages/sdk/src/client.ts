import { randomUUID } from 'node:crypto';
import type { operations } from './openapi-types.ts';
import { signedHeaders } from './sign-request.ts';
import { SigningClock } from './signing-clock.ts';

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  signingSecret: string;
  /**
   * Attempts per call (default 3): after a 429 or a 503 with Retry-After, and, for reads, deletions
   * and signed creations, after a network error, a 5xx or a 409 in progress. A signed creation
   * keeps its Idempotency-Key across them.
   */
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
 * A request that got no answer (connection refused or reset, DNS failure, timeout) after its last
 * attempt: the message names the method and URL (never the key, the signature or the body), and
 * `cause` is the error `fetch` raised (its own `cause` says why: ECONNREFUSED, ENOTFOUND, …).
 */
export class ApiConnectionError extends Error {
  /** The URL called, without the credentials a base URL may carry. */
  readonly url: string;
  constructor(
    readonly method: string,
    url: string,
    /** Attempts made, this one included. */
    readonly attempts: number,
    cause: unknown,
  ) {
    const shown = displayUrl(url);
    super(`${method} ${shown} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reasonOf(cause).split(url).join(shown)}`, { cause });
    this.name = 'ApiConnectionError';
    this.url = shown;
  }
}

/**
 * A small client for integrators: bearer key on every call; signed creations carry a fresh
 * Idempotency-Key per intention, kept across retries so a retry never creates twice.
 */
export class IdvClient {
  /** No two signed requests of this client carry the same signature (the service accepts one once). */
  private readonly signingClock = new SigningClock();

  constructor(private readonly options: ClientOptions) {}

  /** Any route: the JSON answer of `method target` (signed creations with `signed: true`). */
  async request<T>(method: string, target: string, body?: unknown, opts: { signed?: boolean; idempotencyKey?: string } = {}): Promise<T> {
    const res = await this.send(method, target, body === undefined ? '' : JSON.stringify(body), opts);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Sends with the retries; a 2xx answer is returned unread, anything else thrown as ApiRequestError. */
  private async send(method: string, target: string, raw: string, opts: { signed?: boolean; idempotencyKey?: string }): Promise<Response> {
    const idempotencyKey = opts.idempotencyKey ?? randomUUID();
    const attempts = this.options.maxAttempts ?? 3;
    // What may reach the service twice without harm: a read, a deletion, or a signed creation (its
    // Idempotency-Key makes the service answer a repeat with the first result). Other writes (a
    // new API key, a replay, a test delivery) are sent again only after a refusal that says they
    // were not served (429, 503 service_unavailable), never after a network error or a 500.
    const repeatable = opts.signed === true || method === 'GET' || method === 'HEAD' || method === 'DELETE';
    for (let attempt = 1; ; attempt++) {
      const headers: Record<string, string> = { authorization: `Bearer ${this.options.apiKey}` };
      if (raw) headers['content-type'] = 'application/json';
      if (opts.signed) {
        const ts = this.signingClock.next(method, target, raw, Math.floor(Date.now() / 1000));
        Object.assign(headers, signedHeaders(this.options.signingSecret, method, target, raw, idempotencyKey, ts));
      }
      let res: Response;
      try {
        res = await fetch(this.options.baseUrl + target, { method, headers, body: raw || undefined, redirect: 'manual' });
      } catch (err) {
        // The request may have been served before the connection broke: only a repeatable one is sent again.
        if (attempt >= attempts || !repeatable) throw new ApiConnectionError(method, this.options.baseUrl + target, attempt, err);
        await delay(attempt);
        continue;
      }
      if (res.ok) return res;
      const text = await res.text();
      let parsed: ApiErrorBody = {};
      try {
        parsed = text ? JSON.parse(text) : {};
      } catch {
        parsed = {};
      }
      const retryAfter = res.headers.get('retry-after');
      if ((res.status === 429 || (res.status === 503 && retryAfter !== null)) && attempt < attempts) {
        // The limit's window must end first (429), or the service its outage (503 while its
        // database is away): retrying sooner would only be refused again. Longer than the caller
        // may wait, the refusal is theirs to handle now.
        const after = Number(retryAfter ?? 1);
        if (!(Number.isFinite(after) && after >= 0 && after <= (this.options.maxRetryAfterS ?? 60))) throw new ApiRequestError(res.status, parsed);
        await new Promise((r) => setTimeout(r, after * 1000));
        continue;
      }
      if (opts.signed && parsed.error?.code === 'signature_replayed' && attempt < attempts) {
        // This client made no replay: another client with the same key signed the same content in
        // the same second. Signed again a few seconds ahead, under the same Idempotency-Key (the
        // refusal stored nothing under it), the request is served.
        this.signingClock.collided(method, target, raw, Math.floor(Date.now() / 1000));
        continue;
      }
      const retriable = res.status === 409 && parsed.error?.code === 'idempotency_request_in_progress';
      if ((retriable || (res.status >= 500 && repeatable)) && attempt < attempts) {
        await delay(attempt);
        continue;
      }
      throw new ApiRequestError(res.status, parsed);
    }
  }

  // One method per integration route, named by its operationId in openapi/openapi.json; bodies,
  // queries and results are the generated types (tests/sdk/typed-methods.test.ts checks that every
  // integration route has its method).

  // Cases
  createCase(body: Body<'createCase'>, opts?: CallOptions) {
    return this.call('createCase', 'POST', '/v1/cases', { body, signed: true, ...opts });
  }
  listCases(query: Query<'listCases'> = {}) {
    return this.call('listCases', 'GET', '/v1/cases', { query });
  }
  /** The cases the filters select (as `listCases`'), one CSV line each, without personal data. */
  async exportCases(query: Query<'exportCases'> = {}): Promise<string> {
    const res = await this.send('GET', `/v1/cases/export${queryString(query)}`, '', { signed: false });
    return res.text();
  }
  getCase(caseId: string) {
    return this.call('getCase', 'GET', `/v1/cases/${seg(caseId)}`);
  }
  getCaseResults(caseId: string) {
    return this.call('getCaseResults', 'GET', `/v1/cases/${seg(caseId)}/results`);
  }
  decideCase(caseId: string, body: Body<'decideCase'>, opts?: CallOptions) {
    return this.call('decideCase', 'POST', `/v1/cases/${seg(caseId)}/decision`, { body, signed: true, ...opts });
  }
  getCaseData(caseId: string) {
    return this.call('getCaseData', 'GET', `/v1/cases/${seg(caseId)}/data`);
  }
  getCaseAccessLog(caseId: string) {
    return this.call('getCaseAccessLog', 'GET', `/v1/cases/${seg(caseId)}/access-log`);
  }
  eraseCasePersonalData(caseId: string, opts?: CallOptions) {
    return this.call('eraseCasePersonalData', 'POST', `/v1/cases/${seg(caseId)}/erasure`, { signed: true, ...opts });
  }
  /** An image of the case, as bytes with its content type (needs the personal_data permission). */
  async getCaseImage(caseId: string, pieceId: string): Promise<{ contentType: string; bytes: Uint8Array }> {
    const res = await this.send('GET', `/v1/cases/${seg(caseId)}/images/${seg(pieceId)}`, '', { signed: false });
    return { contentType: res.headers.get('content-type') ?? 'application/octet-stream', bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  // Sessions
  createSession(body: Body<'createSession'>, opts?: CallOptions) {
    return this.call('createSession', 'POST', '/v1/sessions', { body, signed: true, ...opts });
  }
  getSession(sessionId: string) {
    return this.call('getSession', 'GET', `/v1/sessions/${seg(sessionId)}`);
  }

  // Webhooks
  /** The response carries the signing secret, once: keep it for verifyWebhook. */
  createWebhookEndpoint(body: Body<'createWebhookEndpoint'>, opts?: CallOptions) {
    return this.call('createWebhookEndpoint', 'POST', '/v1/webhook-endpoints', { body, signed: true, ...opts });
  }
  listWebhookEndpoints() {
    return this.call('listWebhookEndpoints', 'GET', '/v1/webhook-endpoints');
  }
  listWebhookEndpointDeliveries(endpointId: string) {
    return this.call('listWebhookEndpointDeliveries', 'GET', `/v1/webhook-endpoints/${seg(endpointId)}/deliveries`);
  }
  replayWebhookEndpointDelivery(endpointId: string, deliveryId: string) {
    return this.call('replayWebhookEndpointDelivery', 'POST', `/v1/webhook-endpoints/${seg(endpointId)}/replay`, { query: { delivery_id: deliveryId } });
  }
  resumeWebhookEndpoint(endpointId: string) {
    return this.call('resumeWebhookEndpoint', 'POST', `/v1/webhook-endpoints/${seg(endpointId)}/resume`);
  }
  testWebhookEndpoint(endpointId: string) {
    return this.call('testWebhookEndpoint', 'POST', `/v1/webhook-endpoints/${seg(endpointId)}/test`);
  }
  /** Change url, events or description (signed); only the fields sent change, `description: null` clears it. */
  updateWebhookEndpoint(endpointId: string, body: Body<'updateWebhookEndpoint'>, opts?: CallOptions) {
    return this.call('updateWebhookEndpoint', 'PATCH', `/v1/webhook-endpoints/${seg(endpointId)}`, { body, signed: true, ...opts });
  }
  /** No delivery is made for a disabled endpoint; what was already scheduled waits for enable. */
  disableWebhookEndpoint(endpointId: string, opts?: CallOptions) {
    return this.call('disableWebhookEndpoint', 'POST', `/v1/webhook-endpoints/${seg(endpointId)}/disable`, { signed: true, ...opts });
  }
  enableWebhookEndpoint(endpointId: string, opts?: CallOptions) {
    return this.call('enableWebhookEndpoint', 'POST', `/v1/webhook-endpoints/${seg(endpointId)}/enable`, { signed: true, ...opts });
  }
  /** Cancels its scheduled deliveries; the log keeps its past deliveries for their retention. */
  deleteWebhookEndpoint(endpointId: string, opts?: CallOptions) {
    return this.call('deleteWebhookEndpoint', 'DELETE', `/v1/webhook-endpoints/${seg(endpointId)}`, { signed: true, ...opts });
  }
  /**
   * A new signing secret, returned once. For `overlap_seconds` (default 24 h) deliveries carry the
   * previous secret's signature too: verifyWebhook with either, or both, passes meanwhile.
   */
  rotateWebhookEndpointSecret(endpointId: string, body: Body<'rotateWebhookEndpointSecret'> = {}, opts?: CallOptions) {
    return this.call('rotateWebhookEndpointSecret', 'POST', `/v1/webhook-endpoints/${seg(endpointId)}/rotate-secret`, { body, signed: true, ...opts });
  }
  listWebhookDeliveries(query: Query<'listWebhookDeliveries'> = {}) {
    return this.call('listWebhookDeliveries', 'GET', '/v1/webhook-deliveries', { query });
  }
  getWebhookDelivery(deliveryId: string) {
    return this.call('getWebhookDelivery', 'GET', `/v1/webhook-deliveries/${seg(deliveryId)}`);
  }
  replayWebhookDelivery(deliveryId: string) {
    return this.call('replayWebhookDelivery', 'POST', `/v1/webhook-deliveries/${seg(deliveryId)}/replay`);
  }
  listWebhookEvents() {
    return this.call('listWebhookEvents', 'GET', '/v1/webhook-events');
  }

  // Embedding and appearance
  getJourneyEmbedding() {
    return this.call('getJourneyEmbedding', 'GET', '/v1/journey-embedding');
  }
  updateJourneyEmbedding(body: Body<'updateJourneyEmbedding'>, opts?: CallOptions) {
    return this.call('updateJourneyEmbedding', 'POST', '/v1/journey-embedding', { body, signed: true, ...opts });
  }
  getJourneyAppearance() {
    return this.call('getJourneyAppearance', 'GET', '/v1/journey-appearance');
  }
  updateJourneyAppearance(body: Body<'updateJourneyAppearance'>, opts?: CallOptions) {
    return this.call('updateJourneyAppearance', 'POST', '/v1/journey-appearance', { body, signed: true, ...opts });
  }

  // Wallet trust anchors
  /** Every trust anchor of this client and environment (at most 100), oldest first. */
  listTrustAnchors() {
    return this.call('listTrustAnchors', 'GET', '/v1/trust-anchors');
  }
  /** Trust a certificate (one PEM certificate: an IACA root, or an SD-JWT VC issuer's certificate); the key needs the permission decisions. */
  createTrustAnchor(body: Body<'createTrustAnchor'>, opts?: CallOptions) {
    return this.call('createTrustAnchor', 'POST', '/v1/trust-anchors', { body, signed: true, ...opts });
  }
  /** Stop trusting it (204: resolves to undefined); the key needs the permission decisions. */
  deleteTrustAnchor(anchorId: string, opts?: CallOptions) {
    return this.call('deleteTrustAnchor', 'DELETE', `/v1/trust-anchors/${seg(anchorId)}`, { signed: true, ...opts });
  }

  // Flows
  listFlows() {
    return this.call('listFlows', 'GET', '/v1/flows');
  }
  getFlow(name: string) {
    return this.call('getFlow', 'GET', `/v1/flows/${seg(name)}`);
  }
  /** A new version of the flow, as a draft: activate it to make new cases use it. */
  createFlowVersion(name: string, body: Body<'createFlowVersion'>, opts?: CallOptions) {
    return this.call('createFlowVersion', 'POST', `/v1/flows/${seg(name)}/versions`, { body, signed: true, ...opts });
  }
  activateFlowVersion(name: string, version: number, opts?: CallOptions) {
    return this.call('activateFlowVersion', 'POST', `/v1/flows/${seg(name)}/versions/${version}/activate`, { signed: true, ...opts });
  }
  /** How a draft (or a version) would have decided the last decided cases of the flow: nothing is changed. */
  dryRunFlow(name: string, body: Body<'dryRunFlow'>) {
    return this.call('dryRunFlow', 'POST', `/v1/flows/${seg(name)}/dry-run`, { body });
  }

  // Keys, usage, contract
  /** The response carries the key's secret and signing secret, once. */
  createApiKey(body: Body<'createApiKey'> = {}) {
    return this.call('createApiKey', 'POST', '/v1/api-keys', { body });
  }
  listApiKeys(query: Query<'listApiKeys'> = {}) {
    return this.call('listApiKeys', 'GET', '/v1/api-keys', { query });
  }
  revokeApiKey(keyId: string) {
    return this.call('revokeApiKey', 'DELETE', `/v1/api-keys/${seg(keyId)}`);
  }
  getUsage(query: Query<'getUsage'>) {
    return this.call('getUsage', 'GET', '/v1/usage', { query });
  }
  /** The month's units per UTC day and service. */
  getDailyUsage(query: Query<'getDailyUsage'>) {
    return this.call('getDailyUsage', 'GET', '/v1/usage/daily', { query });
  }
  /** The month's measured units as CSV text. */
  async exportUsage(query: Query<'exportUsage'>): Promise<string> {
    const res = await this.send('GET', `/v1/usage/export${queryString(query)}`, '', { signed: false });
    return res.text();
  }
  getApiUsage(query: Query<'getApiUsage'> = {}) {
    return this.call('getApiUsage', 'GET', '/v1/api-usage', { query });
  }
  getContract() {
    return this.call('getContract', 'GET', '/v1/contract');
  }

  /**
   * Every item of a list, page after page, as an async iterator: `for await (const c of
   * client.each('listCases', { status: 'approved' }))`. The next page starts after the last
   * item (`next_cursor`), passed as the parameter that list takes (`cursor` or `starting_after`).
   */
  async *each<K extends ListOperation>(operation: K, query: Query<K> = {} as Query<K>): AsyncGenerator<ListItem<K>> {
    const list = (this as unknown as Record<K, (q: Query<K>) => Promise<ListPage<ListItem<K>>>>)[operation].bind(this);
    let q = { ...query };
    for (;;) {
      const page = await list(q);
      for (const item of page.data) yield item;
      if (!page.has_more || page.data.length === 0) return;
      const after = page.next_cursor ?? (page.data[page.data.length - 1] as { id: string }).id;
      q = { ...q, [CURSOR_PARAM[operation]]: after };
    }
  }

  /** A call whose answer is the operation's JSON result (nothing for a 204). */
  private async call<K extends keyof operations>(
    _operation: K,
    method: string,
    path: string,
    opts: { body?: unknown; query?: object; signed?: boolean; idempotencyKey?: string } = {},
  ): Promise<Result<K>> {
    return this.request<Result<K>>(method, path + queryString(opts.query), opts.body, { signed: opts.signed, idempotencyKey: opts.idempotencyKey });
  }
}

/** What a caller may add to a signed creation: its own Idempotency-Key (one per intention). */
export interface CallOptions {
  idempotencyKey?: string;
}

type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never;
/** The JSON body of an operation. */
export type Body<K extends keyof operations> = operations[K] extends { requestBody: infer R } ? Json<R> : operations[K] extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;
/** The query parameters of an operation. */
export type Query<K extends keyof operations> = operations[K]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;
type Responses<K extends keyof operations> = operations[K]['responses'];
/** The successful result of an operation (undefined for 204 No Content). */
export type Result<K extends keyof operations> =
  Responses<K> extends { 200: infer R } ? Json<R> : Responses<K> extends { 201: infer R } ? Json<R> : Responses<K> extends { 202: infer R } ? Json<R> : undefined;
interface ListPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string | null;
}
type ListOperation = { [K in keyof operations]: Result<K> extends ListPage<{ id: string }> ? (K extends `list${string}` ? K : never) : never }[keyof operations] &
  { [K in keyof IdvClient]: K }[keyof IdvClient];
type ListItem<K extends keyof operations> = Result<K> extends ListPage<infer T> ? T : never;

/** Which query parameter of each list takes the position to resume from (the spec names both). */
const CURSOR_PARAM: Record<ListOperation, 'cursor' | 'starting_after'> = {
  listCases: 'cursor',
  listApiKeys: 'starting_after',
  listWebhookEndpoints: 'starting_after',
  listWebhookEndpointDeliveries: 'starting_after',
  listWebhookDeliveries: 'starting_after',
};

const seg = (s: string) => encodeURIComponent(s);

function queryString(query: object | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) params.set(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The URL as an error may show it: without the user name and password a base URL may carry. */
function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return url;
  }
}

/** Why fetch failed: its message, and its cause's code and message when it has one (undici's "fetch failed" alone says nothing). */
function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const detail = [cause?.code, cause?.message].filter((x) => typeof x === 'string' && x && !message.includes(x)).join(' ');
  return detail ? `${message} (${detail})` : message;
}

function delay(attempt: number): Promise<void> {
  return new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
}
