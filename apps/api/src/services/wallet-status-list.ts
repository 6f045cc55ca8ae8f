import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { checkEndpointUrl, isNonPublicAddress, publicOnlyLookup, type DestinationPolicy } from '@idv/webhooks';

/**
 * Fetches a credential's token status list (its `status.status_list.uri`) under the webhook
 * destination rules (packages/webhooks/src/destination.ts): the URI comes from the credential, so
 * from the person's side, and must not make the service reach its own network. In production
 * https to public addresses only (checked on the very address connected to), in the sandbox http
 * to the local machine too; no redirect followed, an answer within the timeout, at most
 * `maxBytes` read. Throws on anything else (the verifier refuses with wallet_status_unavailable).
 * Both forms of the Status List Token are asked for, the JWT first: a JWT is handed on as text,
 * a CWT (`application/statuslist+cwt`) as its bytes, which @idv/wallet verifies as a COSE_Sign1.
 */

const STATUS_LIST_LIMITS = { timeoutMs: 3_000, maxBytes: 256 * 1024 };

const guardedLookup = publicOnlyLookup();

export function statusListFetcher(policy: DestinationPolicy, limits = STATUS_LIST_LIMITS): (uri: string) => Promise<string | Uint8Array> {
  return (uri) => fetchStatusList(uri, policy, limits);
}

function fetchStatusList(uri: string, policy: DestinationPolicy, limits: typeof STATUS_LIST_LIMITS): Promise<string | Uint8Array> {
  const checked = checkEndpointUrl(uri, policy);
  if (!checked.ok) return Promise.reject(new Error('status list address refused'));
  const target = checked.url;
  const mustBePublic = policy.environment === 'prod' && !policy.allowPrivateNetworks;
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (mustBePublic && isIP(host) !== 0 && isNonPublicAddress(host)) return Promise.reject(new Error('status list address refused'));
  const module = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = module.request(
      target,
      {
        method: 'GET',
        headers: { accept: 'application/statuslist+jwt, application/statuslist+cwt;q=0.9' },
        ...(mustBePublic ? { lookup: guardedLookup } : {}),
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          res.resume();
          reject(new Error(`status list answered ${status}`));
          return;
        }
        const chunks: Buffer[] = [];
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > limits.maxBytes) {
            req.destroy();
            reject(new Error('status list too large'));
            return;
          }
          chunks.push(chunk);
        });
        const cwt = /^application\/statuslist\+cwt\b/i.test(res.headers['content-type'] ?? '');
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve(cwt ? new Uint8Array(body) : body.toString('utf8').trim());
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(limits.timeoutMs, () => {
      req.destroy();
      reject(new Error('status list timeout'));
    });
    req.on('error', reject);
    req.end();
  });
}
