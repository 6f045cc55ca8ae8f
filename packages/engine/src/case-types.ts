import type { CheckReport, DocumentType, FlowDefinition, IdentityValues, PieceKind } from '@idv/domain';
import type { ReadIdentity } from './case-data.ts';

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
}

export type ZoneAgreement = Record<string, 'agree' | 'differ' | 'absent'>;

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
  ms: number;
}

export interface CaseAnalysis {
  /** One report per check the flow runs here (duplicates are added by the runner, which sees other cases). */
  checks: CheckReport[];
  reading: {
    /** The identity read from the document (sealed under the case's data key by the runner). */
    fields: ReadIdentity | null;
    zoneAgreement: ZoneAgreement;
    /** Fused 1152-d descriptors (faces/fused-descriptor.ts) (sealed under the biometric key); null where no usable face was found. */
    faceTemplates: { portrait: number[] | null; selfie: number[] | null };
  };
  /** Milliseconds spent in each part (for the benchmark; never stored). */
  timings: { document: number; face: number; total: number };
}
