import type { FaceChallenge, FaceSequence, Handoff, HandoffCreated, JourneyFrame, JourneyState, PieceKind, WalletRequest, WalletRequestCreated } from './types.ts';

/** A refusal of the service (its error code), or `network` when no answer came. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly field?: string,
  ) {
    super(code);
  }
}

async function failureOf(res: Response): Promise<ApiFailure> {
  try {
    const body = (await res.json()) as { error?: { code?: string; field?: string } };
    return new ApiFailure(res.status, body.error?.code ?? 'unknown', body.error?.field);
  } catch {
    return new ApiFailure(res.status, 'unknown');
  }
}

/** One call of the service with a JSON answer: no cookie, no cache; a refusal becomes its ApiFailure. */
async function send<T>(url: string, init: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiFailure(0, 'network');
  }
  if (!res.ok) throw await failureOf(res);
  return (await res.json()) as T;
}

/**
 * The phone opens a handoff code (the short link's path): the code is the only credential, and the
 * answer is the phone's own journey link, whose fragment is its session token.
 */
export const openHandoff = (apiBase: string, code: string) =>
  send<{ url: string }>(`${apiBase}/v1/sessions/handoff`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });

/**
 * The journey's calls to the service: the session token goes in `Authorization: Session`, never
 * in a URL. Uploads use XMLHttpRequest for real progress events (fetch has no upload progress).
 */
export class Api {
  private readonly base: string;

  constructor(
    apiBase: string,
    private readonly token: string,
  ) {
    this.base = `${apiBase}/v1/sessions/current`;
  }

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return send<T>(this.base + path, {
      method,
      headers: { authorization: `Session ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  state = () => this.call<JourneyState>('GET', '');
  frame = () => this.call<JourneyFrame>('GET', '/embedding');
  post = (path: string, body?: unknown) => this.call<JourneyState>('POST', path, body);
  createHandoff = () => this.call<HandoffCreated>('POST', '/handoffs');
  handoff = (id: string) => this.call<Handoff>('GET', `/handoffs/${encodeURIComponent(id)}`);
  faceChallenge = () => this.call<FaceChallenge>('POST', '/face/challenge');
  createWalletRequest = (mode: WalletRequest['mode']) => this.call<WalletRequestCreated>('POST', '/wallet/requests', { mode });
  walletRequest = (id: string) => this.call<WalletRequest>('GET', `/wallet/requests/${encodeURIComponent(id)}`);
  /** The same-device answer: what the browser's Digital Credentials API returned, for the service to verify. */
  walletResponse = (id: string, response: string) => this.call<WalletRequest>('POST', `/wallet/requests/${encodeURIComponent(id)}/response`, { response });
  /** Sandbox only: the service's test wallet answers the request (docs/wallet.md#try-the-whole-path-in-the-sandbox). */
  sandboxWallet = (id: string) => this.call<WalletRequest>('POST', `/wallet/requests/${encodeURIComponent(id)}/sandbox-presentation`, {});

  /** The live sequence in one JSON upload, with its progress (docs/liveness.md#the-live-sequence). */
  uploadSequence(sequence: FaceSequence, onProgress: (sent: number, total: number) => void): Promise<JourneyState> {
    return this.xhr('POST', '/face/sequence', 'application/json', JSON.stringify(sequence), onProgress);
  }

  upload(kind: PieceKind, blob: Blob, onProgress: (sent: number, total: number) => void): Promise<JourneyState> {
    return this.xhr('PUT', `/pieces/${kind}`, blob.type || 'application/octet-stream', blob, onProgress);
  }

  private xhr(method: string, path: string, type: string, body: Blob | string, onProgress: (sent: number, total: number) => void): Promise<JourneyState> {
    const size = typeof body === 'string' ? body.length : body.size;
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(method, this.base + path);
      xhr.setRequestHeader('authorization', `Session ${this.token}`);
      xhr.setRequestHeader('content-type', type);
      xhr.responseType = 'json';
      xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : size);
      xhr.onerror = () => reject(new ApiFailure(0, 'network'));
      xhr.ontimeout = () => reject(new ApiFailure(0, 'network'));
      xhr.onload = () => {
        const body = xhr.response as (JourneyState & { error?: { code: string; field?: string } }) | null;
        if (xhr.status >= 200 && xhr.status < 300 && body) {
          onProgress(size, size);
          resolve(body);
        } else reject(new ApiFailure(xhr.status, body?.error?.code ?? 'unknown', body?.error?.field));
      };
      xhr.send(body);
    });
  }
}
