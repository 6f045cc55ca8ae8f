import { SignJWT, importJWK } from 'jose';
import { StatusList, createHeaderAndPayload } from '@sd-jwt/jwt-status-list';
import type { TestIssuer } from './issuer.ts';

/** A token status list (IETF draft-ietf-oauth-status-list), one bit per credential, signed by the SD-JWT VC issuer's key with its certificate in x5c. */
export async function createStatusList(issuer: TestIssuer, revokedIndexes: number[], uri: string): Promise<string> {
  const size = Math.max(1024, ...revokedIndexes.map((i) => (Math.floor(i / 8) + 1) * 8));
  const bits = new Array<number>(size).fill(0);
  for (const i of revokedIndexes) bits[i] = 1;
  const now = Math.floor(Date.now() / 1000);
  const x5c = [Buffer.from(issuer.keys.sdJwt.certificate.rawData).toString('base64')];
  const { header, payload } = createHeaderAndPayload(new StatusList(bits, 1), { iss: issuer.name, sub: uri, iat: now, exp: now + 86_400, ttl: 3600 }, { alg: 'ES256', typ: 'statuslist+jwt', x5c });
  const key = await importJWK(issuer.keys.sdJwt.privateJwk as Parameters<typeof importJWK>[0], 'ES256');
  return new SignJWT(payload as Record<string, unknown>).setProtectedHeader(header as unknown as { alg: string }).sign(key);
}
