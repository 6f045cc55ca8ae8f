/**
 * The signed request object (OpenID4VP 1.0 §5, JAR: typ oauth-authz-req+jwt, ES256, x5c = the
 * verifier's chain, client_id `x509_san_dns:`), answered encrypted (direct_post.jwt for a wallet on
 * another device, dc_api.jwt through the browser's Digital Credentials API) to an ephemeral P-256
 * key made for this request, per the OpenID4VC High Assurance Interoperability Profile.
 */
import { SignJWT, exportJWK, generateKeyPair, importJWK } from 'jose';
import { buildDcqlQuery } from './dcql.ts';
import { x509 } from './x509.ts';
import { WALLET_CLAIMS, WalletInputError, type BuiltRequest, type RequestInput } from './types.ts';

export const ENCRYPTION_ENC_VALUES = ['A128GCM', 'A256GCM'];
const B64URL_128 = /^[A-Za-z0-9_-]{22,512}$/;

export async function buildRequest(input: RequestInput): Promise<BuiltRequest> {
  if (!B64URL_128.test(input.nonce) || !B64URL_128.test(input.state)) throw new WalletInputError('nonce and state must be base64url of at least 128 bits.');
  if (input.claims.length === 0 || input.claims.some((c) => !WALLET_CLAIMS.includes(c))) throw new WalletInputError('claims must be a non-empty list of wallet claims.');
  if (input.formats.length === 0) throw new WalletInputError('formats must name at least one credential format.');
  if (input.mode === 'cross_device' && !input.responseUri?.startsWith('https://') && !input.responseUri?.startsWith('http://')) throw new WalletInputError('cross_device needs responseUri.');
  if (input.mode === 'dc_api' && !input.expectedOrigins?.length) throw new WalletInputError('dc_api needs expectedOrigins.');
  const { privateKey, publicKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
  const kid = crypto.randomUUID();
  const encryptionPublic = { ...(await exportJWK(publicKey)), kid, use: 'enc', alg: 'ECDH-ES' };
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = {
    client_id: input.verifier.clientId,
    response_type: 'vp_token',
    response_mode: input.mode === 'dc_api' ? 'dc_api.jwt' : 'direct_post.jwt',
    nonce: input.nonce,
    state: input.state,
    dcql_query: buildDcqlQuery(input.claims, input.formats),
    client_metadata: {
      jwks: { keys: [encryptionPublic] },
      encrypted_response_enc_values_supported: ENCRYPTION_ENC_VALUES,
      vp_formats_supported: {
        'dc+sd-jwt': { 'sd-jwt_alg_values': ['ES256'], 'kb-jwt_alg_values': ['ES256'] },
        mso_mdoc: { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] },
      },
    },
    aud: 'https://self-issued.me/v2',
    iat: now,
    exp: Math.floor(input.expiresAt.getTime() / 1000),
  };
  if (input.mode === 'cross_device') payload.response_uri = input.responseUri;
  else payload.expected_origins = input.expectedOrigins;
  const signingKey = await importJWK(input.verifier.privateJwk as Parameters<typeof importJWK>[0], 'ES256');
  const requestJwt = await new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ: 'oauth-authz-req+jwt', x5c: input.verifier.certificateChainPem.map((pem) => Buffer.from(new x509.X509Certificate(pem).rawData).toString('base64')) })
    .sign(signingKey);
  const encryptionKey = { ...(await exportJWK(privateKey)), kid, use: 'enc', alg: 'ECDH-ES' } as JsonWebKey;
  return {
    requestJwt,
    encryptionKey,
    ...(input.mode === 'dc_api' ? { dcApiRequest: { protocol: 'openid4vp-v1-signed' as const, data: { request: requestJwt } } } : {}),
  };
}
