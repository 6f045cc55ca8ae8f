import { createHash } from 'node:crypto';
import { findCase, findWalletRequestOfCase, markWalletRequestFetched, type SessionByToken } from '@idv/db';
import { readIdentities } from '@idv/case-data';
import type { CredentialFormat } from '@idv/wallet';
import type { Tamper, TestIssuer, TestPerson } from '@idv/wallet/testing';
import { walletTestKit } from './wallet-library.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/api-error.ts';
import { judgeWalletResponse, presentWalletRequest, requestFormats } from './wallet.ts';
import { SANDBOX_STATUS_INDEX, SANDBOX_STATUS_LIST_URI, sandboxTestIssuer } from './wallet-sandbox-issuer.ts';

/**
 * The sandbox test wallet (docs/wallet.md#try-the-whole-path-in-the-sandbox): in the sandbox only,
 * the service's own TestWallet answers a pending wallet request of the session with a credential
 * the sandbox test issuer issues on the spot, through the very path a real wallet's answer takes
 * (an encrypted presentation judged by `judgeWalletResponse`: the verification thread, the vault,
 * then the check and the decision when the journey finishes). Nothing is skipped: only the wallet
 * is the service's. An outcome other than `accepted` makes the credential or the presentation
 * wrong on purpose, so an integrator rehearses each refusal and its reason.
 */

/** The credential the wallet presents: the ids of the request's DCQL credential queries. */
export const SANDBOX_WALLET_CREDENTIALS = ['pid_sd_jwt', 'pid_mdoc', 'mdl'] as const;
export type SandboxWalletCredential = (typeof SANDBOX_WALLET_CREDENTIALS)[number];

/** What goes wrong on purpose, and the refusal's reason the verifier then gives (docs/wallet.md's table). */
export const SANDBOX_WALLET_OUTCOMES = {
  accepted: null,
  untrusted_issuer: 'wallet_issuer_untrusted',
  expired: 'wallet_credential_expired',
  revoked: 'wallet_credential_revoked',
  tampered: 'wallet_presentation_invalid',
  wrong_audience: 'wallet_device_binding_invalid',
  wrong_device_key: 'wallet_device_binding_invalid',
  extra_claim: 'wallet_claims_not_requested',
} as const;
export type SandboxWalletOutcome = keyof typeof SANDBOX_WALLET_OUTCOMES;

const FORMAT_OF: Record<SandboxWalletCredential, CredentialFormat> = { pid_sd_jwt: 'dc+sd-jwt', pid_mdoc: 'mso_mdoc', mdl: 'mso_mdoc' };
const TAMPER_OF: Partial<Record<SandboxWalletOutcome, Tamper>> = {
  tampered: 'disclosure',
  wrong_audience: 'audience',
  wrong_device_key: 'device_signature',
  extra_claim: 'extra_claim',
};
const DAY = 86_400_000;

/** The sandbox person when the case says nothing of its own (the EU PID rulebook's sample person). */
const DEFAULT_PERSON = { given_names: 'Erika', surname: 'Mustermann', birth_date: '1984-01-26', nationality: 'DE' };
/** A document number of the case's own when none is declared: one shared by every sandbox case would make each a duplicate of the others. */
const documentNumberOf = (caseId: string) => `SB${createHash('sha256').update(caseId).digest('hex').slice(0, 8).toUpperCase()}`;

/** An issuer nobody trusts, for `untrusted_issuer`: made once per process (its keys are never kept). */
let stranger: Promise<TestIssuer> | null = null;
const untrustedIssuer = () =>
  (stranger ??= walletTestKit()
    .then(({ createTestIssuer }) => createTestIssuer({ name: 'Untrusted sandbox issuer', country: 'UT' }))
    .catch((err) => {
      stranger = null;
      throw err;
    }));

const text = (v: unknown, max: number): string | null => (typeof v === 'string' && v.trim() !== '' && v.length <= max ? v.trim() : null);
const isoDate = (v: unknown): string | null => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : null);
const alpha2 = (v: unknown): string | null => (typeof v === 'string' && /^[A-Za-z]{2}$/.test(v) ? v.toUpperCase() : null);

/**
 * The person on the credential: what the person entered in the journey, else what the client
 * declared, else the sandbox default, field by field; the issuing country is the sandbox issuer's.
 * Only the values a credential can carry are taken (a name of at most 100 characters, an ISO date, an alpha-2 code).
 */
function sandboxPerson(caseId: string, values: Array<Record<string, unknown> | null>, issuerCountry: string, now: Date): TestPerson {
  const pick = <T>(read: (v: unknown) => T | null, name: string): T | null => {
    for (const v of values) {
      const got = v ? read(v[name]) : null;
      if (got !== null) return got;
    }
    return null;
  };
  return {
    given_names: pick((v) => text(v, 100), 'given_names') ?? DEFAULT_PERSON.given_names,
    surname: pick((v) => text(v, 100), 'surname') ?? DEFAULT_PERSON.surname,
    birth_date: pick(isoDate, 'birth_date') ?? DEFAULT_PERSON.birth_date,
    nationality: pick(alpha2, 'nationality') ?? DEFAULT_PERSON.nationality,
    issuing_country: issuerCountry,
    document_number: pick((v) => text(v, 30), 'document_number') ?? documentNumberOf(caseId),
    expiry_date: new Date(now.getTime() + 5 * 365 * DAY).toISOString().slice(0, 10),
  };
}

export async function presentWithSandboxWallet(
  ctx: AppContext,
  session: SessionByToken,
  requestId: string,
  asked: { credential?: SandboxWalletCredential; outcome?: SandboxWalletOutcome },
) {
  if (session.environment !== 'sandbox') {
    throw new ApiError('sandbox_only', 'The sandbox test wallet presents in the sandbox only: in production a real wallet answers.');
  }
  const row = await findWalletRequestOfCase(ctx.db, session.caseId, requestId);
  if (!row || row.sessionId !== session.id) throw new ApiError('resource_not_found', 'No wallet request of this session has this id.', 'id');
  const now = ctx.now();
  if (row.answeredAt) throw new ApiError('wallet_request_answered');
  if (row.expiresAt <= now) throw new ApiError('wallet_request_expired', `The wallet request expired at ${row.expiresAt.toISOString()}.`);
  const formats = await requestFormats(ctx, row);
  const offered = SANDBOX_WALLET_CREDENTIALS.filter((c) => formats.includes(FORMAT_OF[c]));
  // Without a choice, the first credential the request asks for (a PID as SD-JWT VC where allowed).
  const choice = { credential: asked.credential ?? offered[0]!, outcome: asked.outcome ?? 'accepted' };
  const format = FORMAT_OF[choice.credential];
  if (!formats.includes(format)) {
    throw new ApiError('sandbox_wallet_choice_invalid', `This request asks for ${offered.join(' or ')}, not ${choice.credential}.`, 'credential');
  }

  const tenant = { clientId: row.clientId, environment: row.environment };
  const caseRow = await findCase(ctx.db, tenant, row.caseId);
  if (!caseRow) throw new ApiError('journey_closed');
  const ids = await readIdentities(ctx.db, ctx, caseRow);
  if (ids.erased) throw new ApiError('journey_closed', 'The personal data of this case has been erased.');
  const trusted = await sandboxTestIssuer(ctx);
  const issuer = choice.outcome === 'untrusted_issuer' ? await untrustedIssuer() : trusted;
  const person = sandboxPerson(row.caseId, [ids.entered, ids.declared], issuer.country, now);
  const validity =
    choice.outcome === 'expired'
      ? { validFrom: new Date(now.getTime() - 400 * DAY), validUntil: new Date(now.getTime() - DAY) }
      : { validFrom: new Date(now.getTime() - DAY), validUntil: new Date(now.getTime() + 365 * DAY) };

  const { TestWallet } = await walletTestKit();
  const wallet = await TestWallet.create();
  // The sandbox issuer's credentials carry its status list (an SD-JWT VC's status claim, an
  // mdoc's MSO status), so their revocation is checked as any issuer's: the list is signed below
  // the sandbox IACA, which answers for both formats.
  const status = { statusListUri: SANDBOX_STATUS_LIST_URI, statusIndex: choice.outcome === 'revoked' ? SANDBOX_STATUS_INDEX.revoked : SANDBOX_STATUS_INDEX.valid };
  if (choice.credential === 'pid_sd_jwt') await wallet.addPid(issuer, person, { ...validity, ...status });
  else if (choice.credential === 'pid_mdoc') await wallet.addPidMdoc(issuer, person, { ...validity, ...status });
  else await wallet.addMdl(issuer, person, { ...validity, ...status });

  // As a wallet does: a cross-device request object is fetched (the page sees it fetched), a
  // same-device one is read from what the page was given; the answer is the wallet's own JWE.
  if (row.mode === 'cross_device') await markWalletRequestFetched(ctx.db, row.id, now);
  const tamper = TAMPER_OF[choice.outcome];
  if (!row.requestJwt) throw new ApiError('resource_not_found', 'No wallet request of this session has this id.', 'id');
  const { response } = await wallet
    .respond({ requestJwt: row.requestJwt, mode: row.mode, ...(row.mode === 'dc_api' ? { origin: new URL(ctx.config.journeyUrl).origin } : {}) }, { format, ...(tamper ? { tamper } : {}) })
    .catch(() => {
      // The only answers the wallet cannot make: a change to a value the request does not ask for (an age alone).
      throw new ApiError('sandbox_wallet_choice_invalid', `The outcome ${choice.outcome} needs a claim this request does not ask for (a name or the document number).`, 'outcome');
    });
  await judgeWalletResponse(ctx, row, response);
  const answered = await findWalletRequestOfCase(ctx.db, session.caseId, row.id);
  return presentWalletRequest(answered!, ctx.now());
}

/** What the docs and the OpenAPI description say of the credentials (kept beside the code that issues them). */
export const SANDBOX_WALLET_CREDENTIAL_TYPES: Record<SandboxWalletCredential, string> = {
  pid_sd_jwt: 'PID as SD-JWT VC (urn:eudi:pid:1)',
  pid_mdoc: 'PID as mdoc (eu.europa.ec.eudi.pid.1)',
  mdl: 'mDL as mdoc (org.iso.18013.5.1.mDL)',
};
