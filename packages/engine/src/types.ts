/**
 * The engine's contract: image bytes and declared data in, readings and check reports out. No
 * HTTP, no database, no key: the worker decrypts pieces, calls the engine, and stores what it
 * returns (sealed). Every analyser is a pure async function of its inputs plus the models it
 * loads once per thread.
 */

/** ICAO 9303 formats: TD1 (3×30), TD2 (2×36), TD3 (2×44), visas MRV-A (2×44) and MRV-B (2×36). */
export type MrzFormat = 'TD1' | 'TD2' | 'TD3' | 'MRVA' | 'MRVB';

/** Identity and document fields as read, normalised (dates ISO `YYYY-MM-DD`, codes upper case). */
export interface DocumentFields {
  document_code?: string; // first characters of the MRZ: P, I, ID, AC, V…
  issuing_country?: string; // ICAO 3-letter code as printed (UTO, D, FRA…)
  document_number?: string;
  surname?: string;
  given_names?: string;
  nationality?: string;
  birth_date?: string;
  sex?: 'M' | 'F' | 'X';
  expiry_date?: string;
  optional_data?: string;
}

export interface MrzReading {
  format: MrzFormat;
  lines: string[];
  fields: DocumentFields;
  /** Every check digit (and the composite) matches. */
  checkDigitsValid: boolean;
  /** Names of the check-digit fields that failed (`document_number`, `birth_date`, `expiry_date`, `optional_data`, `composite`). */
  failedCheckDigits: string[];
  /** Characters changed by check-digit correction (only when exactly one correction satisfied them). */
  corrections: number;
  /** Issuing state and nationality are valid ICAO codes (specimen codes counted separately). */
  codesValid: boolean;
  specimen: boolean;
  /** Mean classifier confidence over the characters, 0..1. */
  confidence: number;
}

export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A box as fractions (0..1) of an image's width and height, after its EXIF orientation: independent of the size it was analysed at. */
export interface RelativeBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface FaceAnalysis {
  box: FaceBox;
  /** Face height over image height, 0..1. */
  relativeSize: number;
  /** Degrees; yaw positive when the person turns to their own left in an unmirrored image. */
  yaw: number;
  pitch: number;
  roll: number;
  /** Unit vector of FACE_DESCRIPTOR_LENGTH values (faces/recognition-descriptor.ts); compare with `faceDistance`. */
  descriptor: number[];
  /** Face image quality (faces/recognition-descriptor.ts): low for a face the model cannot describe well. */
  quality: number;
  score: number;
}

;
