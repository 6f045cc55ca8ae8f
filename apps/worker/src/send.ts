import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { AttemptResult } from '@idv/db';
import { isNonPublicAddress, publicOnlyLookup, type DestinationPolicy } from '@idv/webhooks';

export interface SendLimits {
  timeoutMs: number;
  maxResponseBytes: number;
}

/**
 * Connection pools. Deliveries bound by the public-address rule get pools of their own, whose
 * every connection went through the guarded lookup, so a kept-alive socket opened for a
 * sandbox endpoint can never carry a production delivery.
 */
export class DeliveryAgents {
  private readonly guardedLookup = publicOnlyLookup();
  // Idle sockets are dropped after 4 s, before the usual 5 s keep-alive of servers (Node's
  // default), so a reused socket is rarely one the receiver is closing.
  private readonly keep = { keepAlive: true, timeout: 4_000 };
  readonly open = { http: new http.Agent(this.keep), https: new https.Agent(this.keep) };
  readonly guarded = {
    http: new http.Agent({ ...this.keep, lookup: this.guardedLookup } as http.AgentOptions),
    https: new https.Agent({ ...this.keep, lookup: this.guardedLookup } as https.AgentOptions),
  };

  forPolicy(policy: DestinationPolicy) {
    return policy.environment === 'prod' && !policy.allowPrivateNetworks ? this.guarded : this.open;
  }

  destroy(): void {
    for (const a of [this.open.http, this.open.https, this.guarded.http, this.guarded.https]) a.destroy();
  }
}

function errorCode(err: NodeJS.ErrnoException): string {
  const code = err.code ?? '';
  if (code === 'ERR_DESTINATION_REFUSED') return 'destination_refused';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'connection_reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL') return 'dns_error';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host_unreachable';
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SSL|TLS/.test(code)) return 'tls_error';
  return 'network_error';
}

/** Only a 2xx counts; a redirect is not followed (node:http never follows one) and counts as a failure. */
function fromStatus(status: number): { ok: true; responseStatus: number } | { ok: false; responseStatus: number; error: string } {
  if (status >= 200 && status < 300) return { ok: true, responseStatus: status };
  return { ok: false, responseStatus: status, error: status >= 300 && status < 400 ? 'redirect' : 'http_status' };
}

/**
 * One POST of a delivery. The answer must start within timeoutMs; at most maxResponseBytes of
 * the body are read and dropped (nothing of it is stored). Never throws: every outcome is an
 * AttemptResult. Destination rules are checked again here, at send time, because the address
 * behind a name can change after the endpoint was accepted.
 */
export function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  policy: DestinationPolicy,
  agents: DeliveryAgents,
  limits: SendLimits,
): Promise<AttemptResult> {
  const startedAt = new Date();
  const t0 = performance.now();
  const elapsed = () => Math.round(performance.now() - t0);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ ok: false, startedAt, durationMs: 0, responseStatus: null, error: 'destination_refused' });
  }
  const mustBePublic = policy.environment === 'prod' && !policy.allowPrivateNetworks;
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const refused =
    (target.protocol !== 'https:' && target.protocol !== 'http:') ||
    (policy.environment === 'prod' && target.protocol !== 'https:') ||
    // The guarded lookup is not consulted for an address literal, so check it here.
    (mustBePublic && isIP(host) !== 0 && isNonPublicAddress(host));
  if (refused) return Promise.resolve({ ok: false, startedAt, durationMs: 0, responseStatus: null, error: 'destination_refused' });

  const pool = agents.forPolicy(policy);
  const module = target.protocol === 'https:' ? https : http;
  const deadline = Date.now() + limits.timeoutMs;
  const once = (): Promise<AttemptResult | 'stale_socket'> => new Promise((resolve) => {
    let status: number | null = null;
    let settled = false;
    const finish = (outcome: { ok: true; responseStatus: number } | { ok: false; responseStatus: number | null; error: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, startedAt, durationMs: elapsed() } as AttemptResult);
    };
    const req = module.request(
      target,
      {
        method: 'POST',
        agent: target.protocol === 'https:' ? pool.https : pool.http,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > limits.maxResponseBytes) res.destroy(); // enough: the status is what counts
        });
        res.on('end', () => finish(fromStatus(status!)));
        res.on('close', () => finish(fromStatus(status!)));
        res.on('error', () => finish(fromStatus(status!)));
      },
    );
    const timer = setTimeout(() => {
      // An answer that started in time counts by its status even if its body drags on.
      if (status !== null) finish(fromStatus(status));
      else finish({ ok: false, responseStatus: null, error: 'timeout' });
      req.destroy();
    }, Math.max(0, deadline - Date.now()));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (status !== null) return finish(fromStatus(status));
      // A kept-alive socket the receiver was closing as the request went out: almost surely the
      // receiver got nothing, so this is no failure of it; the request goes once more on a new
      // socket (should it have arrived after all, it is a duplicate the receiver deduplicates).
      if (req.reusedSocket && err.code === 'ECONNRESET' && !settled) {
        settled = true;
        clearTimeout(timer);
        return resolve('stale_socket');
      }
      finish({ ok: false, responseStatus: null, error: errorCode(err) });
    });
    req.end(body);
  });
  return once().then((r) => (r === 'stale_socket' ? once() : r)).then((r) => (r === 'stale_socket' ? staleTwice(startedAt, elapsed()) : r));
}

function staleTwice(startedAt: Date, durationMs: number): AttemptResult {
  return { ok: false, startedAt, durationMs, responseStatus: null, error: 'connection_reset' };
}
