import { SignJWT, importJWK } from 'jose';
import { StatusList, createHeaderAndPayload } from '@sd-jwt/jwt-status-list';
import type { TestIssuer } from './issuer.ts';

/**
 * A token status list (IETF draft-ietf-oauth-status-list) as a JWT (`statuslist+jwt`), signed by
 * the SD-JWT VC issuer's key with its certificate in x5c. That certificate is below the test
 * issuer's IACA, so the list answers for its SD-JWT VCs (an `sd_jwt_issuer` anchor) and for its
 * mdocs (an `iaca` anchor) alike. One bit per credential (1: revoked); two bits when some indexes
 * are suspended (status 2).
 */
export async function createStatusList(issuer: TestIssuer, revokedIndexes: number[], uri: string, o: { suspendedIndexes?: number[] } = {}): Promise<string> {
  const suspended = o.suspendedIndexes ?? [];
  const size = Math.max(1024, ...[...revokedIndexes, ...suspended].map((i) => (Math.floor(i / 8) + 1) * 8));
  const statuses = new Array<number>(size).fill(0);
  for (const i of revokedIndexes) statuses[i] = 1;
  for (const i of suspended) statuses[i] = 2;
  const now = Math.floor(Date.now() / 1000);
  const x5c = [Buffer.from(issuer.keys.sdJwt.certificate.rawData).toString('base64')];
  const list = new StatusList(statuses, suspended.length ? 2 : 1);
  const { header, payload } = createHeaderAndPayload(list, { iss: issuer.name, sub: uri, iat: now, exp: now + 86_400, ttl: 3600 }, { alg: 'ES256', typ: 'statuslist+jwt', x5c });
  const key = await importJWK(issuer.keys.sdJwt.privateJwk as Parameters<typeof importJWK>[0], 'ES256');
  return new SignJWT(payload as Record<string, unknown>).setProtectedHeader(header as unknown as { alg: string }).sign(key);
}
