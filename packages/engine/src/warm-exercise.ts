import sharp from 'sharp';
import { STANDARD_FLOW } from '@idv/domain';
import type { CaseInput } from './case-types.ts';
import { generateDocument } from './generator/generate.ts';
import { randomIdentity } from './generator/identity.ts';

/**
 * A made-up case for the warm-up to run once through a thread's tasks. Loading the models is not
 * enough: measured after a load, the first case still took 1.8 times a later one (each kernel,
 * wasm function and tesseract's recogniser is slow the first time it runs). A passport page from
 * the project's own generator (no fixture is needed in production) with a plain grey portrait:
 * the document, OCR and face-detection paths all run; no personal data is involved.
 */
export async function exerciseCase(): Promise<CaseInput> {
  const seed = 1;
  const fields = { ...randomIdentity(seed), document_code: 'P' };
  const portrait = await sharp({ create: { width: 240, height: 300, channels: 3, background: { r: 150, g: 140, b: 130 } } }).jpeg().toBuffer();
  const doc = await generateDocument({ format: 'TD3', fields, portrait, seed });
  return {
    pieces: { document_front: doc.image },
    declared: null,
    entered: null,
    questionnaire: null,
    flow: { ...STANDARD_FLOW, steps: ['document'], documents: [{ country: '*', types: ['passport'] }], liveness: { challenges: [] } },
    document: { country: 'FR', type: 'passport' },
    environment: 'sandbox',
    now: new Date(0),
  };
}
