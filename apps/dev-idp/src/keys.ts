import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWK } from 'jose';

/**
 * What the development provider keeps between starts, under its data directory (0600): the ID
 * token signing key (RS256, generated once, so tokens and the service's cached JWKS stay valid
 * across restarts), the keys of its own cookies, and the console client's secret.
 */
export interface ProviderState {
  signingKey: JWK;
  cookieKeys: string[];
  clientSecret: string;
}

export async function loadOrCreateState(dir: string): Promise<ProviderState> {
  const path = join(dir, 'provider-state.json');
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as ProviderState;
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  const state: ProviderState = {
    signingKey: { ...jwk, kid: `dev-${randomBytes(6).toString('hex')}`, alg: 'RS256', use: 'sig' },
    cookieKeys: [randomBytes(32).toString('base64url')],
    clientSecret: randomBytes(32).toString('base64url'),
  };
  try {
    writeFileSync(path, JSON.stringify(state, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another process sharing the data directory wrote it first: theirs is the one.
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
    return JSON.parse(readFileSync(path, 'utf8')) as ProviderState;
  }
  return state;
}
