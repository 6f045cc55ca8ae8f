/**
 * A test wallet: a device key, a PID as SD-JWT VC and an mDL as mdoc issued by a TestIssuer,
 * answering a signed OpenID4VP request (cross-device direct_post.jwt, or the DC API) the way a
 * real wallet does — the request's signature checked, only the asked claims disclosed, bound to
 * this request's nonce and audience, encrypted to the request's key — or tampered on purpose.
 */
import { createHash, webcrypto } from 'node:crypto';
import { CompactEncrypt, SignJWT, calculateJwkThumbprint, compactVerify, decodeProtectedHeader, exportJWK, importJWK, importX509 } from 'jose';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { ES256, digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { CoseKey, DateOnly, DeviceKey, DeviceRequest, DeviceResponse, DocRequest, Issuer, IssuerAuth, IssuerSigned, ItemsRequest, MobileSecurityObject, SessionTranscript, SignatureAlgorithm, cborDecode, cborEncode } from '@owf/mdoc';
import { MDL_DOCTYPE, MDL_NAMESPACE, MDOC_DOCTYPES, MDOC_ELEMENTS, PID_VCT, SD_JWT_PATHS } from '../claims.ts';
import type { DcqlQuery } from '../dcql.ts';
import { mdocContext } from '../mdoc-context.ts';
import { x509 } from '../x509.ts';
import { WALLET_CLAIMS, type CredentialFormat, type WalletClaim } from '../types.ts';
import { documentSigner, type TestIssuer } from './issuer.ts';

export interface TestPerson {
  given_names: string;
  surname: string;
  birth_date: string;
  nationality: string;
  issuing_country: string;
  document_number: string;
  expiry_date: string;
  portrait?: Uint8Array;
}
export interface TestCredentialOptions {
  validFrom?: Date;
  validUntil?: Date;
  /** A token status list reference: `status.status_list` in the SD-JWT VC, `status` → `status_list` in an mdoc's MSO. */
  statusListUri?: string;
  statusIndex?: number;
}
export type Tamper = 'disclosure' | 'device_signature' | 'omit_device_signature' | 'nonce' | 'audience' | 'extra_claim';

const DAY = 86_400_000;
const b64url = (b: Uint8Array | string) => Buffer.from(b).toString('base64url');
const sha256 = (s: string) => createHash('sha256').update(s).digest();

function ageOver18(birthDate: string, now = new Date()): boolean {
  const [y, m, d] = birthDate.split('-').map(Number);
  const eighteen = new Date(Date.UTC(y + 18, m - 1, d));
  return eighteen.getTime() <= now.getTime();
}

async function newKey() {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  return { privateJwk: await exportJWK(keys.privateKey), publicJwk: await exportJWK(keys.publicKey) };
}

interface Held {
  sdJwt?: string;
  /** By docType: the mDL, the PID as mdoc. */
  mdocs: Map<string, { issuerSigned: import('@owf/mdoc').IssuerSigned; person: TestPerson; namespace: string }>;
}

interface Request {
  client_id: string;
  nonce: string;
  state?: string;
  response_uri?: string;
  dcql_query: DcqlQuery;
  client_metadata: { jwks: { keys: Array<Record<string, unknown>> }; encrypted_response_enc_values_supported?: string[] };
}

export class TestWallet {
  private held: Held = { mdocs: new Map() };
  private constructor(private readonly device: { privateJwk: Record<string, unknown>; publicJwk: Record<string, unknown> }) {}

  static async create(): Promise<TestWallet> {
    return new TestWallet((await newKey()) as never);
  }

  /** PID as SD-JWT VC (vct urn:eudi:pid:1), every personal claim selectively disclosable, bound to the device key (cnf.jwk). */
  async addPid(issuer: TestIssuer, person: TestPerson, o: TestCredentialOptions = {}): Promise<void> {
    const key = issuer.keys.sdJwt;
    const sdjwt = new SDJwtVcInstance({
      signer: await ES256.getSigner(key.privateJwk),
      signAlg: 'ES256',
      hasher: digest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
    });
    const validFrom = o.validFrom ?? new Date(Date.now() - DAY);
    const validUntil = o.validUntil ?? new Date(Date.now() + 365 * DAY);
    const claims: Record<string, unknown> = {
      iss: `https://${issuer.country.toLowerCase()}.issuer.test`,
      vct: PID_VCT,
      iat: Math.floor(validFrom.getTime() / 1000),
      nbf: Math.floor(validFrom.getTime() / 1000),
      exp: Math.floor(validUntil.getTime() / 1000),
      cnf: { jwk: this.device.publicJwk },
      given_name: person.given_names,
      family_name: person.surname,
      birthdate: person.birth_date,
      nationalities: [person.nationality],
      issuing_country: person.issuing_country,
      issuing_authority: issuer.name,
      document_number: person.document_number,
      date_of_expiry: person.expiry_date,
      age_equal_or_over: { '18': ageOver18(person.birth_date) },
    };
    if (person.portrait) claims.picture = `data:image/jpeg;base64,${Buffer.from(person.portrait).toString('base64')}`;
    if (o.statusListUri !== undefined) claims.status = { status_list: { idx: o.statusIndex ?? 0, uri: o.statusListUri } };
    const sd = Object.keys(claims).filter((k) => !['iss', 'vct', 'iat', 'nbf', 'exp', 'cnf', 'status', 'age_equal_or_over'].includes(k));
    this.held.sdJwt = await sdjwt.issue(claims as never, { _sd: sd, age_equal_or_over: { _sd: ['18'] } } as never, {
      header: { typ: 'dc+sd-jwt', x5c: [Buffer.from(key.certificate.rawData).toString('base64')] },
    });
  }

  /** mDL as mdoc (org.iso.18013.5.1.mDL), signed by the issuer's document signer for the person's issuing country. */
  async addMdl(issuer: TestIssuer, person: TestPerson, o: TestCredentialOptions = {}): Promise<void> {
    await this.addMdoc(MDL_DOCTYPE, MDL_NAMESPACE, issuer, person, o);
  }

  /** PID as mdoc (eu.europa.ec.eudi.pid.1), beside the SD-JWT VC one. */
  async addPidMdoc(issuer: TestIssuer, person: TestPerson, o: TestCredentialOptions = {}): Promise<void> {
    const pid = MDOC_DOCTYPES.find((d) => d.id === 'pid_mdoc')!;
    await this.addMdoc(pid.docType, pid.namespace, issuer, person, o);
  }

  private async addMdoc(docType: string, namespace: string, issuer: TestIssuer, person: TestPerson, o: TestCredentialOptions): Promise<void> {
    const signer = await documentSigner(issuer, person.issuing_country.toUpperCase());
    const mdoc = new Issuer(docType, mdocContext);
    const values: Record<string, unknown> = {
      given_name: person.given_names,
      family_name: person.surname,
      birth_date: new DateOnly(person.birth_date),
      issue_date: new DateOnly(new Date(Date.now() - 30 * DAY).toISOString().slice(0, 10)),
      expiry_date: new DateOnly(person.expiry_date),
      issuing_country: person.issuing_country.toUpperCase(),
      issuing_authority: issuer.name,
      document_number: person.document_number,
      nationality: person.nationality,
      age_over_18: ageOver18(person.birth_date),
    };
    if (docType === MDL_DOCTYPE) Object.assign(values, { un_distinguishing_sign: person.issuing_country.toUpperCase(), driving_privileges: [{ vehicle_category_code: 'B' }] });
    // The PID rulebook's nationality is a list of alpha-2 codes.
    else values.nationality = [person.nationality];
    if (person.portrait) values.portrait = person.portrait;
    mdoc.addIssuerNamespace(namespace, values);
    const now = new Date();
    const signingKey = CoseKey.fromJwk({ ...signer.privateJwk, alg: 'ES256' } as Record<string, unknown>);
    let issuerSigned = await mdoc.sign({
      signingKey,
      algorithm: SignatureAlgorithm.ES256,
      digestAlgorithm: 'SHA-256',
      certificates: [new Uint8Array(signer.certificate.rawData)],
      deviceKeyInfo: { deviceKey: DeviceKey.fromJwk(this.device.publicJwk) },
      validityInfo: { signed: now, validFrom: o.validFrom ?? now, validUntil: o.validUntil ?? new Date(Date.now() + 365 * DAY) },
    });
    if (o.statusListUri !== undefined) issuerSigned = await withStatus(issuerSigned, signingKey, { idx: o.statusIndex ?? 0, uri: o.statusListUri });
    this.held.mdocs.set(docType, { issuerSigned, person, namespace });
  }

  /** Answers a signed request (cross_device: the request JWT fetched from request_uri; dc_api: the dcApiRequest) with the compact JWE to post. */
  async respond(
    request: { requestJwt: string; mode: 'cross_device' | 'dc_api'; origin?: string },
    o: { format?: CredentialFormat; tamper?: Tamper } = {},
  ): Promise<{ response: string }> {
    const req = await readRequest(request.requestJwt);
    const wanted = req.dcql_query.credentials.filter((c) => (o.format ? c.format === o.format : true) && (c.format === 'dc+sd-jwt' ? this.held.sdJwt : this.held.mdocs.has(c.meta.doctype_value as string)));
    const query = wanted[0];
    if (!query) throw new Error('the test wallet holds no credential this request asks for');
    const encKey = req.client_metadata.jwks.keys[0];
    const thumbprint = await calculateJwkThumbprint(encKey as never, 'sha256');
    const nonce = o.tamper === 'nonce' ? b64url(webcrypto.getRandomValues(new Uint8Array(16))) : req.nonce;
    const asked = claimsOf(query);
    const extra = o.tamper === 'extra_claim' ? WALLET_CLAIMS.find((c) => !asked.includes(c) && c !== 'portrait') : undefined;
    const disclose = extra ? [...asked, extra] : asked;
    let presentation: string;
    if (query.format === 'dc+sd-jwt') {
      const aud = o.tamper === 'audience' ? 'x509_san_dns:another-verifier.example' : request.mode === 'dc_api' ? `origin:${request.origin}` : req.client_id;
      presentation = await this.presentSdJwt(disclose, nonce, aud, o.tamper);
    } else {
      const otherAud = o.tamper === 'audience';
      const transcript =
        request.mode === 'dc_api'
          ? await SessionTranscript.forOid4VpDcApi({ origin: otherAud ? 'https://another-verifier.example' : request.origin!, nonce, jwkThumbprint: Buffer.from(thumbprint, 'base64url') }, mdocContext)
          : await SessionTranscript.forOid4Vp({ clientId: otherAud ? 'x509_san_dns:another-verifier.example' : req.client_id, nonce, jwkThumbprint: Buffer.from(thumbprint, 'base64url'), responseUri: req.response_uri! }, mdocContext);
      presentation = await this.presentMdoc(query.meta.doctype_value as string, disclose, transcript, o.tamper);
    }
    const payload = { vp_token: { [query.id]: [presentation] }, ...(req.state ? { state: req.state } : {}) };
    const enc = req.client_metadata.encrypted_response_enc_values_supported?.[0] ?? 'A128GCM';
    const response = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'ECDH-ES', enc, kid: encKey.kid as string })
      .encrypt(await importJWK(encKey as never, 'ECDH-ES'));
    return { response };
  }

  private async presentSdJwt(claims: WalletClaim[], nonce: string, aud: string, tamper?: Tamper): Promise<string> {
    const sdjwt = new SDJwtVcInstance({ hasher: digest, hashAlg: 'sha-256' });
    const frame: Record<string, unknown> = {};
    for (const c of claims) {
      const path = SD_JWT_PATHS[c];
      if (path.length === 2) frame[path[0]] = { [path[1]]: true };
      else frame[path[0]] = true;
    }
    let presented = await sdjwt.present(this.held.sdJwt!, frame as never);
    if (!presented.endsWith('~')) presented += '~';
    if (tamper === 'disclosure') {
      // The holder changes a disclosed value (a birth date, a name) and signs anyway.
      const parts = presented.split('~');
      const i = parts.findIndex((p, n) => n > 0 && p && Array.isArray(JSON.parse(Buffer.from(p, 'base64url').toString())) && JSON.parse(Buffer.from(p, 'base64url').toString()).length === 3);
      const [salt, name, value] = JSON.parse(Buffer.from(parts[i], 'base64url').toString()) as [string, string, unknown];
      parts[i] = b64url(JSON.stringify([salt, name, typeof value === 'string' ? `${value}x` : !value]));
      presented = parts.join('~');
    }
    if (tamper === 'omit_device_signature') return presented;
    const signingJwk = tamper === 'device_signature' ? (await newKey()).privateJwk : this.device.privateJwk;
    const kb = await new SignJWT({ iat: Math.floor(Date.now() / 1000), aud, nonce, sd_hash: b64url(sha256(presented)) })
      .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
      .sign(await importJWK(signingJwk as never, 'ES256'));
    return presented + kb;
  }

  private async presentMdoc(docType: string, claims: WalletClaim[], transcript: SessionTranscript, tamper?: Tamper): Promise<string> {
    const held = this.held.mdocs.get(docType)!;
    const nameSpaces = new Map([[held.namespace, new Map(claims.map((c) => [MDOC_ELEMENTS[c], true] as [string, boolean]))]]);
    const deviceRequest = DeviceRequest.create({ docRequests: [DocRequest.create({ itemsRequest: ItemsRequest.create({ docType, namespaces: nameSpaces }) })] });
    const signingJwk = tamper === 'device_signature' ? (await newKey()).privateJwk : this.device.privateJwk;
    const response = await DeviceResponse.createWithDeviceRequest(
      { deviceRequest, sessionTranscript: transcript, issuerSigned: [held.issuerSigned], signature: { signingKey: CoseKey.fromJwk({ ...signingJwk, alg: 'ES256' } as Record<string, unknown>) } },
      mdocContext,
    );
    let bytes = response.encode();
    if (tamper === 'disclosure') {
      // The holder changes a disclosed value in place (same length, the CBOR stays well formed).
      const target = [held.person.surname, held.person.given_names, held.person.document_number].find((v) => Buffer.from(bytes).includes(Buffer.from(v)));
      if (!target) throw new Error('nothing to tamper with: disclose a name or the document number');
      const at = Buffer.from(bytes).indexOf(Buffer.from(target));
      const copy = Buffer.from(bytes);
      copy[at] = copy[at] === 0x58 ? 0x59 : 0x58; // X or Y
      bytes = new Uint8Array(copy);
    }
    if (tamper === 'omit_device_signature') {
      const raw = cborDecode(bytes) as Map<string, unknown>;
      const doc = (raw.get('documents') as Array<Map<string, unknown>>)[0];
      ((doc.get('deviceSigned') as Map<string, unknown>).get('deviceAuth') as Map<string, unknown>).delete('deviceSignature');
      bytes = cborEncode(raw);
    }
    return b64url(bytes);
  }
}

/**
 * The same issuer-signed mdoc with a token status list reference in its MSO (ISO/IEC 18013-5
 * second edition; draft-ietf-oauth-status-list: `status` → `status_list` → `idx`, `uri`), signed
 * again by the same document signer. @owf/mdoc's Issuer has no status option, but its MSO keeps
 * extra keys, so the library's own MSO and IssuerAuth are rebuilt around the added map.
 */
async function withStatus(signed: IssuerSigned, signingKey: CoseKey, ref: { idx: number; uri: string }): Promise<IssuerSigned> {
  const auth = signed.issuerAuth;
  const structure = auth.mobileSecurityObject.encodedStructure as Map<unknown, unknown>;
  structure.set('status', new Map([['status_list', new Map<string, unknown>([['idx', ref.idx], ['uri', ref.uri]])]]));
  const issuerAuth = await IssuerAuth.create(
    {
      payload: MobileSecurityObject.fromEncodedStructure(structure),
      protectedHeaders: auth.protectedHeaders,
      unprotectedHeaders: auth.unprotectedHeaders,
      signingKey,
      algorithm: SignatureAlgorithm.ES256,
    },
    mdocContext,
  );
  return IssuerSigned.create({ issuerNamespaces: signed.issuerNamespaces, issuerAuth });
}

/** The request object, its signature checked against its x5c leaf as a wallet does (the verifier's own certificate: not trusted further here). */
async function readRequest(requestJwt: string): Promise<Request> {
  const header = decodeProtectedHeader(requestJwt);
  if (header.typ !== 'oauth-authz-req+jwt' || !header.x5c?.[0]) throw new Error('not a signed OpenID4VP request');
  const pem = new x509.X509Certificate(Buffer.from(header.x5c[0], 'base64')).toString('pem');
  const { payload } = await compactVerify(requestJwt, await importX509(pem, 'ES256'));
  const req = JSON.parse(new TextDecoder().decode(payload)) as Request;
  const dns = req.client_id.replace(/^x509_san_dns:/, '');
  const san = new x509.X509Certificate(Buffer.from(header.x5c[0], 'base64')).getExtension(x509.SubjectAlternativeNameExtension);
  if (!san?.names.items.some((n) => n.type === 'dns' && n.value === dns)) throw new Error("the request's client_id is not its certificate's DNS name");
  return req;
}

/** The WalletClaims a credential query asks for (its claim paths read back). */
function claimsOf(query: DcqlQuery['credentials'][number]): WalletClaim[] {
  return WALLET_CLAIMS.filter((c) =>
    query.claims.some((q) => (query.format === 'dc+sd-jwt' ? q.path.join('/') === SD_JWT_PATHS[c].join('/') : q.path[1] === MDOC_ELEMENTS[c])),
  );
}
