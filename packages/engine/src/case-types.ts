import type { CameraReport, CheckReason, CheckReport, DocumentType, FlowDefinition, IdentityValues, LivenessChallenge, PieceKind } from '@idv/domain';
import type { ReadIdentity } from './case-data.ts';
import type { DecodedImage } from './document/decode.ts';
import type { OcrPass } from './document/printed-zone.ts';
import type { FaceFinding } from './faces/analyse-face.ts';
import type { StillMediumJudgement } from './faces/medium/judge.ts';
import type { DocumentFields, MrzReading, RelativeBox } from './types.ts';

/**
 * What the checks of one case take and give, across threads (every field survives structured
 * cloning: plain objects, strings, numbers, Uint8Array, Date).
 */
export interface CaseInput {
  /** Decrypted image bytes of the round's current pieces, by kind. */
  pieces: Partial<Record<PieceKind, Uint8Array>>;
  declared: IdentityValues | null;
  entered: IdentityValues | null;
  questionnaire: { points: number; flags: string[] } | null;
  flow: FlowDefinition;
  /** The document the person chose (country ISO alpha-2, type); null when the flow has no document step. */
  document: { country: string; type: DocumentType } | null;
  environment: 'sandbox' | 'prod';
  now: Date;
  /** The live sequence answering the round's face challenge (docs/liveness.md#the-live-sequence); absent: none was sent. */
  sequence?: SequenceCapture | null;
  /** The wallet presentation of the case (docs/wallet.md); absent or null when the flow has no wallet step. */
  wallet?: WalletInput | null;
}

/**
 * What the wallet step left for the checks: the accepted presentation (its verified claims, the
 * facts its report measures, the portrait the selfie is matched with), or the refusals when none
 * was accepted; `fellBack`: the person chose the document instead (no wallet report then).
 */
export interface WalletInput {
  accepted: {
    format: 'dc+sd-jwt' | 'mso_mdoc';
    claims: Partial<Record<'given_names' | 'surname' | 'birth_date' | 'nationality' | 'issuing_country' | 'document_number' | 'expiry_date', string>> & { age_over_18?: boolean };
    validUntil: Date;
    statusChecked: boolean;
    claimsDisclosed: number;
    /** The credential's portrait (decrypted piece bytes), when the request asked for it. */
    portrait: Uint8Array | null;
  } | null;
  /** Refusals before the accepted one, or all of them; the latest refusal's reason first. */
  refusals: CheckReason[];
  fellBack: boolean;
}

/** The live sequence as stored: its challenge, the frames in capture order and what the browser said about its camera. */
export interface SequenceCapture {
  movements: LivenessChallenge[];
  issuedAt: Date;
  expiresAt: Date;
  answeredAt: Date;
  /** Capture times, ms from the first frame, one per frame. */
  times: number[];
  /** Decrypted frame bytes (JPEG), in capture order. */
  frames: Uint8Array[];
  camera: CameraReport;
}

export type ZoneAgreement = Record<string, 'agree' | 'differ' | 'absent'>;

/** Wall and CPU time of one task on its thread (CPU null where /proc is not available). */
export interface TaskTiming {
  ms: number;
  cpuMs: number | null;
}

/**
 * What the document task reads (quality, MRZ, barcode), before the printed zone is known: the
 * MRZ report and validity depend on the printed zone, so they are judged once both are in.
 */
export interface DocumentReading {
  /** document_quality (or document_not_found): always first. */
  reports: CheckReport[];
  /** The front decoded: nothing else is read otherwise. */
  decoded: boolean;
  /** The MRZ was looked for (every document but driving licences). */
  mrzWanted: boolean;
  mrz: MrzReading | null;
  /** The barcode was looked for (driving licences, North American documents). */
  barcode: { fields: DocumentFields | null; found: number; expected: boolean } | null;
  timing: TaskTiming;
}

/** The printed zone's OCR, made beside the MRZ reader: the passes and the straightened front (for a second pass). */
export interface PrintedOcr {
  passes: OcrPass[];
  straightened: DecodedImage;
  timing: TaskTiming;
}

/** Faces found on one image (null: not decodable), as a task returns them. */
export interface FacesFound {
  faces: FaceFinding[] | null;
  /** The medium of the one face (a selfie's task asks for it): null when not judged. */
  medium?: StillMediumJudgement | null;
  timing: TaskTiming;
}

/** What the document thread returns: its reports and the fields read. */
export interface DocumentPart {
  reports: CheckReport[];
  read: ReadIdentity | null;
  zoneAgreement: ZoneAgreement;
  ms: number;
}

/** What the face thread returns: face match and liveness reports, and the two face templates. */
export interface FacePart {
  reports: CheckReport[];
  templates: { portrait: number[] | null; selfie: number[] | null };
  /** Where the portrait compared is on the document's front (null when none was found). */
  portraitBox: RelativeBox | null;
  ms: number;
}

export interface CaseAnalysis {
  /** One report per check the flow runs here (duplicates are added by the runner, which sees other cases). */
  checks: CheckReport[];
  reading: {
    /** The identity read from the document (sealed under the case's data key by the runner). */
    fields: ReadIdentity | null;
    zoneAgreement: ZoneAgreement;
    /** Face descriptors (faces/recognition-descriptor.ts), sealed under the biometric key; null where no usable face was found. */
    faceTemplates: { portrait: number[] | null; selfie: number[] | null };
    /**
     * Where the face compared is on the document's front, for the review station's portrait crop
     * (a position, no personal data; the crop itself is cut from the sealed image when shown).
     */
    portraitBox: RelativeBox | null;
  };
  /**
   * Milliseconds spent in each part (for the benchmark; never stored); `tasks`: each pool task's
   * wall and thread CPU time, by task name.
   */
  timings: { document: number; face: number; total: number; tasks?: Record<string, TaskTiming> };
}
