import { STANDARD_FLOW } from '@idv/domain';

/**
 * The example values of the reference's code samples, per operationId. The route schemas give
 * the shapes but no values a running service accepts together (a case id that exists, a flow
 * definition that validates), so they are written here, once, and every sample built from them
 * is run against a started service by tests/docs/reference-samples.test.ts.
 *
 * An id is never invented: `ref('CASE_ID')` is the variable the sample reads it from (`$CASE_ID`
 * in a shell, `process.env.CASE_ID` in Node), which the reader sets from an earlier answer.
 */
export interface VariableRef {
  readonly variable: string;
  /** The variable holds a number (a flow's version), written without quotes in JSON. */
  readonly number?: true;
  /** The variable holds JSON (the live sequence's frames), written as it is. */
  readonly json?: true;
}
const ref = (variable: string, kind?: 'number' | 'json'): VariableRef => (kind === 'number' ? { variable, number: true } : kind === 'json' ? { variable, json: true } : { variable });
export const isRef = (v: unknown): v is VariableRef => typeof v === 'object' && v !== null && typeof (v as VariableRef).variable === 'string';

export type ExampleValue = string | number | boolean | null | VariableRef | ExampleValue[] | { [k: string]: ExampleValue };

export interface OperationExample {
  /** The JSON body (operations with a JSON request body). */
  body?: { [k: string]: ExampleValue };
  /** Query parameters shown (at least the required ones). */
  query?: Record<string, ExampleValue>;
  /** Path parameters given as a value rather than read from their variable (`{name}`: the flow's name). */
  path?: Record<string, ExampleValue>;
  /** A binary body: the file the sample sends, and its content type. */
  file?: { name: string; contentType: string };
}

/** A month the usage routes accept (any past or current month answers, with zeros when nothing happened). */
const MONTH = '2026-11';

export const EXAMPLES: Record<string, OperationExample> = {
  // Cases and sessions: `Sandbox Review` sends the case to review in the sandbox (docs/sandbox.md),
  // where the review routes' samples find it.
  createCase: { body: { flow_name: 'standard', country: 'FR', external_ref: 'customer-42', declared: { given_names: 'Sandbox Review' } } },
  listCases: { query: { limit: 5 } },
  exportCases: { query: { flow_name: 'standard' } },
  createSession: { body: { case_id: ref('CASE_ID'), locale: 'en' } },
  decideCase: { body: { outcome: 'approve', justification: 'Portrait and selfie compared by hand: same person; the document is genuine.' } },

  // Webhooks: the sandbox accepts http on your own machine.
  createWebhookEndpoint: { body: { url: 'http://localhost:4000/webhooks', events: ['case.decided', 'case.resubmission_requested'], description: 'order service' } },
  updateWebhookEndpoint: { body: { events: ['case.decided'], description: 'order service, decisions only' } },
  rotateWebhookEndpointSecret: { body: { overlap_seconds: 86400 } },
  replayWebhookEndpointDelivery: { query: { delivery_id: ref('DELIVERY_ID') } },
  listWebhookDeliveries: { query: { limit: 10 } },

  // Embedding and appearance.
  updateJourneyEmbedding: { body: { origins: ['https://shop.example.com'] } },
  updateJourneyAppearance: { body: { display_name: 'Example Shop', primary_color: '#1d4ed8', background_color: '#ffffff' } },

  // Wallet trust anchors: the certificate as a JSON string (CERTIFICATE_PEM_JSON=$(jq -Rs . < iaca.pem)),
  // since a PEM's line breaks cannot stand in JSON as they are.
  createTrustAnchor: { body: { kind: 'iaca', certificate_pem: ref('CERTIFICATE_PEM_JSON', 'json'), label: 'France IACA' } },

  // Flows: the standard flow's definition, as the service ships it.
  getFlow: { path: { name: 'standard' } },
  createFlowVersion: { path: { name: 'standard' }, body: { definition: STANDARD_FLOW as unknown as { [k: string]: ExampleValue } } },
  activateFlowVersion: { path: { name: 'standard', version: ref('FLOW_VERSION', 'number') } },
  dryRunFlow: { path: { name: 'standard' }, body: { version: ref('FLOW_VERSION', 'number'), cases: 100 } },

  // Keys and usage.
  createApiKey: { body: { name: 'reporting', permissions: [] } },
  listApiKeys: { query: { limit: 10 } },
  getUsage: { query: { period: MONTH } },
  getDailyUsage: { query: { period: MONTH } },
  exportUsage: { query: { period: MONTH } },

  // The hosted journey's routes (session token of the link).
  giveJourneyConsent: { body: { accepted: true } },
  enterJourneyApplicant: { body: { given_names: 'Sandbox Review', surname: 'Hopper', birth_date: '1906-12-09', email: 'grace@example.com' } },
  answerJourneyQuestionnaire: { body: { answers: { source_of_funds: 'salary', politically_exposed: 'no' } } },
  chooseJourneyDocument: { body: { country: 'FR', type: 'passport' } },
  uploadJourneyPiece: { path: { kind: 'document_front' }, file: { name: 'passport.jpg', contentType: 'image/jpeg' } },
  openJourneyHandoff: { body: { code: ref('HANDOFF_CODE') } },
  // The wallet (docs/wallet.md): the page's request, the same-device answer the Digital Credentials
  // API returned, and the wallet's own form answer (response=<JWE>, direct_post.jwt) from a file.
  createWalletRequest: { body: { mode: 'cross_device' } },
  answerWalletRequest: { body: { response: ref('WALLET_RESPONSE') } },
  postWalletResponse: { file: { name: 'wallet-response.txt', contentType: 'application/x-www-form-urlencoded' } },
  // The sandbox test wallet answering the page's request (sandbox keys only): a PID as SD-JWT VC, accepted.
  presentWithSandboxWallet: { body: { credential: 'pid_sd_jwt', outcome: 'accepted' } },
  // The frames the capture made (JSON: [{ "t": ms, "image": base64 JPEG }, …]), answering the challenge drawn just before.
  uploadFaceSequence: {
    body: {
      challenge_id: ref('CHALLENGE_ID'),
      nonce: ref('CHALLENGE_NONCE'),
      frames: ref('SEQUENCE_FRAMES', 'json'),
      camera: { label: 'Front Camera', width: 720, height: 1280, frame_rate: 30, facing_mode: 'user' },
    },
  },

  // The console's routes (console credential, acting for an operator).
  resolveOperator: { body: { subject: ref('OPERATOR_SUBJECT') } },
  inviteOperator: { body: { name: 'Ada Lovelace', role: 'support', countries: ['FR'], sensitivity: 'standard' } },
  updateOperatorClearance: { body: { countries: ['FR', 'BE'] } },
  addReviewCorrection: { body: { field: 'subject.surname', value: 'HOPPER', comment: 'read from the passport' } },
  decideReview: { body: { outcome: 'approve', justification: 'Portrait and selfie compared by hand: same person; the document is genuine.' } },
  reviseReview: { body: { outcome: 'reject', reason_code: 'suspected_fraud' } },
  createCaseJourneyLink: { body: { locale: 'en' } },
  openSupportAccess: { body: { case_id: ref('CASE_ID'), operator_id: ref('SUPPORT_OPERATOR_ID'), reason: 'ticket 1234: the applicant cannot finish' } },
};
