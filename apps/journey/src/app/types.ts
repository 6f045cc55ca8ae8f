import type { JourneyStep } from '@idv/embed/protocol';

/** The journey state the service returns (GET /v1/sessions/current and every write). */
export type FlowStep = 'consent' | 'applicant' | 'questionnaire' | 'wallet' | 'document' | 'face';
/** The screens reported to an embedding page as `step` (one list, packages/embed/src/protocol.ts); every flow step is one. */
export type Screen = JourneyStep;
export type { EndReason } from '@idv/embed/protocol';
export type PieceKind =
  | 'document_front'
  | 'document_back'
  | 'selfie'
  | 'liveness_turn_left'
  | 'liveness_turn_right'
  | 'liveness_look_up'
  | 'liveness_look_down'
  | 'liveness_frame';
export type DocumentType = 'passport' | 'id_card' | 'driving_licence' | 'residence_permit' | 'visa';

export interface JourneyState {
  object: 'journey';
  status: 'open' | 'completed' | 'declined' | 'expired';
  locale: string;
  expires_at: string;
  round: number;
  steps: FlowStep[];
  step: FlowStep | 'check' | null;
  missing: string[];
  consent: { given: boolean };
  applicant: { done: boolean; fields: { name: string; required: boolean }[] };
  questionnaire: { done: boolean; questions: { id: string; label: string; answers: { id: string; label: string }[] }[] };
  document: {
    case_country: string;
    accepted: { country: string; types: DocumentType[] }[];
    types_for_case_country: DocumentType[];
    chosen: { country: string; type: DocumentType } | null;
    sides: PieceKind[];
  };
  face: { challenges: string[] };
  /** The wallet step (docs/wallet.md, docs/journey.md#the-digital-identity-wallet); null when this round does not offer it. */
  wallet: {
    formats: WalletFormat[];
    /** The person may choose the document instead: choosing it (POST /document) ends the wallet step. */
    document_fallback: boolean;
    claims: string[];
    /** accepted: a presentation was accepted this round; refused: as many were refused as a round allows (the step is over). */
    status: 'accepted' | 'refused' | null;
    refusals_left: number;
    /** The sandbox test wallet may answer (the sandbox only). */
    sandbox_wallet: boolean;
  } | null;
  required_pieces: PieceKind[];
  pieces: { id: string; kind: PieceKind; received_at: string }[];
  capture: { allow_file_upload: boolean };
  appearance: { display_name: string | null; primary_color: string; background_color: string; button_label_color: string; logo_path: string | null };
  limits: { max_bytes: number; min_short_side: number; min_long_side: number; max_side: number; types: string[] };
}

export interface JourneyFrame {
  object: 'journey_frame';
  origins: string[];
  frame_path: string;
}

/** Where the journey stands, as the desktop following a phone sees it (no data, no piece). */
interface JourneyPosition {
  status: JourneyState['status'];
  step: FlowStep | 'check' | null;
}

/** A desktop-to-phone handoff (GET /v1/sessions/current/handoffs/{id}). */
export interface Handoff {
  object: 'handoff';
  id: string;
  status: 'waiting' | 'opened' | 'expired';
  expires_at: string;
  opened_at: string | null;
  journey: JourneyPosition;
}

/** A new handoff: its code and short link are returned once (POST /v1/sessions/current/handoffs). */
export interface HandoffCreated extends Handoff {
  code: string;
  url: string;
}

/** A challenge of the live sequence (POST /v1/sessions/current/face/challenge). */
export interface FaceChallenge {
  id: string;
  movements: ('turn_left' | 'turn_right' | 'look_up' | 'look_down')[];
  hold_ms: number;
  nonce: string;
  expires_at: string;
  frame_rate: number;
  max_frames: number;
  max_duration_ms: number;
  max_frame_bytes: number;
  max_side: number;
}

/** The live sequence as sent (POST /v1/sessions/current/face/sequence). */
export interface FaceSequence {
  challenge_id: string;
  nonce: string;
  frames: { t: number; image: string }[];
  camera: { label?: string; width?: number; height?: number; frame_rate?: number; facing_mode?: string; video_inputs?: number };
}

type WalletFormat = 'dc+sd-jwt' | 'mso_mdoc';
/** Why the service refused a presentation (packages/domain/src/check-reasons.ts, the `wallet_` ones). */
export type WalletRefusal =
  | 'wallet_issuer_untrusted'
  | 'wallet_credential_expired'
  | 'wallet_credential_revoked'
  | 'wallet_device_binding_invalid'
  | 'wallet_presentation_invalid'
  | 'wallet_claims_not_requested'
  | 'wallet_status_unavailable';

/** A wallet request as the page follows it (GET /v1/sessions/current/wallet/requests/{id}). */
export interface WalletRequest {
  object: 'wallet_request';
  id: string;
  mode: 'cross_device' | 'dc_api';
  status: 'pending' | 'fetched' | 'accepted' | 'refused' | 'expired';
  reason?: WalletRefusal;
  expires_at: string;
}

/** A new wallet request (POST /v1/sessions/current/wallet/requests): what the wallet is handed. */
export interface WalletRequestCreated extends WalletRequest {
  claims: string[];
  /** For a wallet on another device: the request by reference, as a link (QR code, or tapped on a phone). */
  cross_device?: { request_uri: string; wallet_link: string };
  /** For the browser's Digital Credentials API: one entry of `digital.requests`. */
  dc_api?: { protocol: string; data: unknown };
}
