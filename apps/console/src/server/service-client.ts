import { Readable } from 'node:stream';
/**
 * The console server's calls to the service, with the console credential. The credential and the
 * ID token travel only between these two servers, never to the browser.
 */
export interface ServiceAnswer {
  status: number;
  contentType: string;
  /** The body as received (JSON, or an image when not streamed). */
  body: Buffer;
  /** A body that is not JSON, when the request asked for streaming: passed on as it comes, never held whole in memory. */
  stream?: Readable;
  /** The error code when the answer is an error in the service's shape. */
  errorCode: string | null;
  /** The parsed JSON body, when JSON. */
  json: unknown;
  /** The service's pacing headers (Retry-After, RateLimit-*), for the browser to pace itself by. */
  pacing?: Record<string, string>;
}

/**
 * Headers of the service's answer the browser is given as they are: when to retry (a 429 or a 503)
 * and the operator's rate limit. Everything else about the service stays behind the console.
 */
const PACING_HEADERS = ['retry-after', 'ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

export interface ForwardRequest {
  method: string;
  /** Path and query below the service's base URL, starting with /v1/. */
  path: string;
  operatorId?: string;
  /** The ID token of a recent re-authentication (X-Service-Reauthenticated-At). */
  reauthToken?: string;
  body?: Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  /** Pass a body that is not JSON (an image) on as a stream instead of reading it whole. */
  stream?: boolean;
}

const TIMEOUT_MS = 30_000;

export class ServiceClient {
  constructor(
    private readonly baseUrl: string,
    private readonly credential: string,
  ) {}

  /** The environment of the console credential, from its prefix (sk_sandbox_ / sk_live_). */
  get environment(): 'sandbox' | 'prod' {
    return this.credential.startsWith('sk_live_') ? 'prod' : 'sandbox';
  }

  async call(req: ForwardRequest): Promise<ServiceAnswer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.credential}`, ...req.headers };
    if (req.operatorId) headers['x-service-operator'] = req.operatorId;
    if (req.reauthToken) headers['x-service-reauthenticated-at'] = req.reauthToken;
    if (req.body && req.body.length) headers['content-type'] = req.contentType ?? 'application/json';
    const res = await fetch(`${this.baseUrl}${req.path}`, {
      method: req.method,
      headers,
      body: req.body && req.body.length ? new Uint8Array(req.body) : undefined,
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'manual',
    });
    const contentType = res.headers.get('content-type') ?? 'application/octet-stream';
    const pacing: Record<string, string> = {};
    for (const name of PACING_HEADERS) {
      const v = res.headers.get(name);
      if (v !== null) pacing[name] = v;
    }
    if (req.stream && res.body && !contentType.startsWith('application/json')) {
      return { status: res.status, contentType, body: Buffer.alloc(0), stream: Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), errorCode: null, json: null, pacing };
    }
    const body = Buffer.from(await res.arrayBuffer());
    let json: unknown = null;
    let errorCode: string | null = null;
    if (contentType.startsWith('application/json') && body.length) {
      try {
        json = JSON.parse(body.toString('utf8'));
        const code = (json as { error?: { code?: unknown } }).error?.code;
        if (res.status >= 400 && typeof code === 'string') errorCode = code;
      } catch {
        json = null;
      }
    }
    return { status: res.status, contentType, body, errorCode, json, pacing };
  }

  /** POST /v1/operators/resolve: which operator the subject is (and the invitation consumed at the first sign-in). */
  resolve(subject: string, invitationToken?: string): Promise<ServiceAnswer> {
    const body = Buffer.from(JSON.stringify({ subject, ...(invitationToken ? { invitation_token: invitationToken } : {}) }));
    return this.call({ method: 'POST', path: '/v1/operators/resolve', body });
  }
}
