import { Type } from '@sinclair/typebox';
import { CHECK_REASON_LIST, DOCUMENT_TYPES, JOURNEY_STEPS, LIVENESS_CHALLENGES, LOCALES, PIECE_KINDS, WALLET_CLAIMS, WALLET_FORMATS, type ErrorCode, type HandoffStatus } from '@idv/domain';
import { literals } from '../../schemas/case.ts';
import { Timestamp, publicErrorResponses } from '../../schemas/common.ts';

const FlowStepSchema = literals(JOURNEY_STEPS);
const PieceKindSchema = literals(PIECE_KINDS);
const DocumentTypeSchema = literals(DOCUMENT_TYPES);

export const JourneySchema = Type.Object(
  {
    object: Type.Literal('journey'),
    status: literals(['open', 'completed', 'declined', 'expired'] as const),
    locale: literals(LOCALES, { description: "Language of the texts: the session's, or en when the journey does not speak it" }),
    expires_at: Timestamp,
    round: Type.Integer({ minimum: 1, description: 'Each resubmission decision opens a new round' }),
    steps: Type.Array(FlowStepSchema, { description: 'Steps of this round, in the flow order' }),
    step: Type.Union([FlowStepSchema, Type.Literal('check'), Type.Null()], { description: 'Where to resume; check once everything has arrived; null when not open' }),
    missing: Type.Array(Type.String(), { description: 'Steps and piece kinds still missing before finishing' }),
    consent: Type.Object({ given: Type.Boolean() }),
    applicant: Type.Object({
      done: Type.Boolean(),
      fields: Type.Array(Type.Object({ name: Type.String(), required: Type.Boolean() })),
    }),
    questionnaire: Type.Object({
      done: Type.Boolean(),
      questions: Type.Array(
        Type.Object({
          id: Type.String(),
          label: Type.String(),
          answers: Type.Array(Type.Object({ id: Type.String(), label: Type.String() })),
        }),
      ),
    }),
    document: Type.Object({
      case_country: Type.String(),
      accepted: Type.Array(Type.Object({ country: Type.String({ description: 'ISO 3166-1 alpha-2, or * for any other country' }), types: Type.Array(DocumentTypeSchema) })),
      types_for_case_country: Type.Array(DocumentTypeSchema),
      chosen: Type.Union([Type.Object({ country: Type.String(), type: DocumentTypeSchema }), Type.Null()]),
      sides: Type.Array(PieceKindSchema),
    }),
    face: Type.Object({ challenges: Type.Array(literals(LIVENESS_CHALLENGES)) }),
    wallet: Type.Union(
      [
        Type.Object({
          formats: Type.Array(literals(WALLET_FORMATS)),
          document_fallback: Type.Boolean({ description: 'The person may choose the document instead (POST /v1/sessions/current/document)' }),
          claims: Type.Array(literals(WALLET_CLAIMS), { description: 'What a request of this journey asks the wallet for' }),
          status: Type.Union([literals(['accepted', 'refused'] as const), Type.Null()], {
            description: 'accepted: a presentation was accepted this round; refused: as many were refused as a round allows (the step is over); null: none yet',
          }),
          refusals_left: Type.Integer({ minimum: 0, description: 'Presentations that may still be refused this round before the step ends' }),
          sandbox_wallet: Type.Boolean({
            description: 'The sandbox test wallet may answer this journey’s requests (POST /v1/sessions/current/wallet/requests/{id}/sandbox-presentation): true in the sandbox only',
          }),
        }),
        Type.Null(),
      ],
      { description: 'The wallet step (docs/wallet.md); null when this round does not offer it' },
    ),
    required_pieces: Type.Array(PieceKindSchema),
    pieces: Type.Array(Type.Object({ id: Type.String(), kind: PieceKindSchema, received_at: Timestamp })),
    capture: Type.Object({ allow_file_upload: Type.Boolean({ description: 'A file input may replace live capture' }) }),
    appearance: Type.Object(
      {
        display_name: Type.Union([Type.String(), Type.Null()]),
        primary_color: Type.String(),
        background_color: Type.String(),
        button_label_color: Type.String(),
        logo_path: Type.Union([Type.String(), Type.Null()], { description: 'Path of the logo on the journey origin (changes with the logo); null: none' }),
      },
      { description: 'The client’s look (POST /v1/journey-appearance); the journey’s own until set' },
    ),
    limits: Type.Object({
      max_bytes: Type.Integer(),
      min_short_side: Type.Integer(),
      min_long_side: Type.Integer(),
      max_side: Type.Integer(),
      types: Type.Array(Type.String()),
    }),
  },
  {
    $id: 'Journey',
    description: 'The journey of the session: the flow texts in its language and what is done; never personal data',
  },
);

export const JourneyFrameSchema = Type.Object(
  {
    object: Type.Literal('journey_frame'),
    origins: Type.Array(Type.String(), { description: 'Origins allowed to frame the journey; empty means none' }),
    frame_path: Type.String({ description: 'Path of the framed journey on the journey origin, served with frame-ancestors from origins' }),
  },
  { $id: 'JourneyFrame' },
);

const handoffFields = {
  object: Type.Literal('handoff'),
  id: Type.String(),
  status: Type.Unsafe<HandoffStatus>({
    type: 'string',
    enum: ['waiting', 'opened', 'expired'],
    description: 'waiting: the code is not opened yet; opened: the phone’s session is alive; expired: the code was not opened in time or was replaced, or the phone’s session ended',
  }),
  expires_at: Type.String({ format: 'date-time', description: 'Until when the code can be opened' }),
  opened_at: Type.Union([Timestamp, Type.Null()]),
  journey: Type.Object(
    {
      status: literals(['open', 'completed', 'declined', 'expired'] as const),
      step: Type.Union([FlowStepSchema, Type.Literal('check'), Type.Null()], { description: 'The step the person is at; null when not open' }),
    },
    { description: 'Where the journey of the case stands, whichever device moves it on: no data, no piece' },
  ),
};

export const HandoffSchema = Type.Object(handoffFields, {
  $id: 'Handoff',
  description: 'A desktop-to-phone handoff as the desktop follows it',
});

export const HandoffCreatedSchema = Type.Object(
  {
    ...handoffFields,
    code: Type.String({ description: 'The short code (ten characters in two groups), returned once; only its hash is stored' }),
    url: Type.String({ format: 'uri', description: 'The short link {journey_url}/p/<code> for the QR code, returned once' }),
  },
  { $id: 'HandoffCreated' },
);

export const FaceChallengeSchema = Type.Object(
  {
    object: Type.Literal('face_challenge'),
    id: Type.String(),
    movements: Type.Array(literals(LIVENESS_CHALLENGES), { description: 'The movements to perform, in this order' }),
    hold_ms: Type.Integer({ description: 'How long to hold each movement before the next' }),
    nonce: Type.String({ description: 'Sent back with the frames; returned once, only its hash is stored' }),
    issued_at: Timestamp,
    expires_at: Timestamp,
    frame_rate: Type.Integer({ description: 'Frames a second to capture (at least 8 are judged continuous)' }),
    min_frames: Type.Integer(),
    max_frames: Type.Integer(),
    max_duration_ms: Type.Integer({ description: 'First to last frame' }),
    max_frame_bytes: Type.Integer(),
    max_total_bytes: Type.Integer(),
    max_side: Type.Integer({ description: 'A frame’s longer side at most (pixels)' }),
    min_short_side: Type.Integer({ description: 'A frame’s shorter side at least (pixels)' }),
  },
  { $id: 'FaceChallenge', description: 'A challenge of the live sequence (docs/liveness.md#the-live-sequence)' },
);

const WalletRequestStatus = literals(['pending', 'fetched', 'accepted', 'refused', 'expired'] as const, {
  description: 'pending: issued; fetched: a wallet fetched the request object (cross_device); accepted or refused: answered (once); expired: not answered in time',
});
const WalletRefusalSchema = literals(CHECK_REASON_LIST.filter((r) => r.startsWith('wallet_')), {
  description: 'Why the presentation was refused (the wallet check reasons, docs/checks.md)',
});

export const WalletRequestSchema = Type.Object(
  {
    object: Type.Literal('wallet_request'),
    id: Type.String(),
    mode: literals(['cross_device', 'dc_api'] as const),
    status: WalletRequestStatus,
    reason: Type.Optional(WalletRefusalSchema),
    expires_at: Timestamp,
  },
  { $id: 'WalletRequest', description: 'A wallet request of the journey as the page follows it: no data' },
);

export const WalletRequestCreatedSchema = Type.Object(
  {
    object: Type.Literal('wallet_request'),
    id: Type.String(),
    mode: literals(['cross_device', 'dc_api'] as const),
    status: Type.Literal('pending'),
    expires_at: Timestamp,
    claims: Type.Array(literals(WALLET_CLAIMS), { description: 'What the request asks for (the flow decides)' }),
    cross_device: Type.Optional(
      Type.Object({
        request_uri: Type.String({ format: 'uri', description: 'Where the wallet fetches the signed request object (GET, no session)' }),
        wallet_link: Type.String({ description: 'openid4vp://?client_id=…&request_uri=… for the QR code or a link on the phone' }),
      }),
    ),
    dc_api: Type.Optional(
      Type.Object(
        {
          protocol: Type.Literal('openid4vp-v1-signed'),
          data: Type.Object({ request: Type.String({ description: 'The signed request object' }) }),
        },
        { description: 'What the page passes to navigator.credentials.get({ digital: { requests: [{ protocol, data }] } })' },
      ),
    ),
  },
  { $id: 'WalletRequestCreated', description: 'A new wallet request: the QR link (cross_device) or the Digital Credentials API request (dc_api)' },
);

export const HandoffSessionSchema = Type.Object(
  {
    object: Type.Literal('handoff_session'),
    url: Type.String({ format: 'uri', description: 'The phone’s own journey link ({journey_url}/#<token>), returned once' }),
    expires_at: Timestamp,
  },
  { $id: 'HandoffSession', description: 'The session a handoff code opened on the phone' },
);

/** Errors of every journey route: the session token's, plus the route's own. */
export function journeyErrors(...codes: ErrorCode[]) {
  return publicErrorResponses(...codes, 'session_token_missing', 'session_token_invalid', 'session_expired', 'internal_error');
}

export const JOURNEY_SECURITY = [{ sessionToken: [] }];
