import { SignJWT, importJWK } from 'jose';
import { CoseKey, Sign1, SignatureAlgorithm, cborEncode } from '@owf/mdoc';
import { StatusList, createHeaderAndPayload } from '@sd-jwt/jwt-status-list';
import { mdocContext } from '../mdoc-context.ts';
import type { TestIssuer } from './issuer.ts';

interface ListOptions {
  suspendedIndexes?: number[];
}

/** One bit per credential (1: revoked); two bits when some indexes are suspended (status 2). */
function statusesOf(revokedIndexes: number[], o: ListOptions): StatusList {
  const suspended = o.suspendedIndexes ?? [];
  const size = Math.max(1024, ...[...revokedIndexes, ...suspended].map((i) => (Math.floor(i / 8) + 1) * 8));
  const statuses = new Array<number>(size).fill(0);
  for (const i of revokedIndexes) statuses[i] = 1;
  for (const i of suspended) statuses[i] = 2;
  return new StatusList(statuses, suspended.length ? 2 : 1);
}

/**
 * A token status list (IETF draft-ietf-oauth-status-list) as a JWT (`statuslist+jwt`), signed by
 * the SD-JWT VC issuer's key with its certificate in x5c. That certificate is below the test
 * issuer's IACA, so the list answers for its SD-JWT VCs (an `sd_jwt_issuer` anchor) and for its
 * mdocs (an `iaca` anchor) alike.
 */
export async function createStatusList(issuer: TestIssuer, revokedIndexes: number[], uri: string, o: ListOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const x5c = [Buffer.from(issuer.keys.sdJwt.certificate.rawData).toString('base64')];
  const { header, payload } = createHeaderAndPayload(statusesOf(revokedIndexes, o), { iss: issuer.name, sub: uri, iat: now, exp: now + 86_400, ttl: 3600 }, { alg: 'ES256', typ: 'statuslist+jwt', x5c });
  const key = await importJWK(issuer.keys.sdJwt.privateJwk as Parameters<typeof importJWK>[0], 'ES256');
  return new SignJWT(payload as Record<string, unknown>).setProtectedHeader(header as unknown as { alg: string }).sign(key);
}

/**
 * The same list as a CWT (`application/statuslist+cwt`): a tagged COSE_Sign1 by the same key, its
 * certificate in the unprotected x5chain (as in an mdoc's IssuerAuth); claims 2 (sub), 6 (iat),
 * 4 (exp), 65534 (ttl), 65533 (the status list: `bits`, `lst` the zlib-compressed bytes).
 */
export async function createStatusListCwt(issuer: TestIssuer, revokedIndexes: number[], uri: string, o: ListOptions = {}): Promise<Uint8Array> {
  const now = Math.floor(Date.now() / 1000);
  const list = statusesOf(revokedIndexes, o);
  const body = new Map<string, unknown>([
    ['bits', list.getBitsPerStatus()],
    ['lst', new Uint8Array(Buffer.from(list.compressStatusList(), 'base64url'))],
  ]);
  const claims = new Map<number, unknown>([
    [2, uri],
    [6, now],
    [4, now + 86_400],
    [65534, 3600],
    [65533, body],
  ]);
  const sign1 = await Sign1.create(
    {
      protectedHeaders: new Map<number, unknown>([
        [1, -7],
        [16, 'application/statuslist+cwt'],
      ]),
      unprotectedHeaders: new Map<number, unknown>([[33, new Uint8Array(issuer.keys.sdJwt.certificate.rawData)]]),
      payload: cborEncode(claims),
      signingKey: CoseKey.fromJwk({ ...issuer.keys.sdJwt.privateJwk, alg: 'ES256' } as Record<string, unknown>),
      algorithm: SignatureAlgorithm.ES256,
    },
    mdocContext,
  );
  // COSE_Sign1's tag (18) in front of the library's untagged encoding, as a CWT is sent.
  return new Uint8Array([0xd2, ...sign1.encode()]);
}
