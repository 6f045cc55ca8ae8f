import sharp from 'sharp';
import { STANDARD_FLOW } from '@idv/domain';
import type { CaseInput } from './case-types.ts';
import { generateDocument } from './generator/generate.ts';
import { randomIdentity } from './generator/identity.ts';

/**
 * Made-up cases the warm-up runs once through a thread's tasks: loading the models is not enough,
 * each kernel is slow the first time it runs. Two documents because the MRZ reader's paths differ
 * by format (passport, identity card read from its back); the drawn face is found in the selfie,
 * so what runs after detection is warmed too. Generated, so no fixture or personal data is needed.
 */
export interface ExerciseCases {
  passport: CaseInput;
  /** Read only by the threads that read documents (the OCR threads need the passport alone). */
  card(): Promise<CaseInput>;
  selfie: Buffer;
}

export async function exerciseCases(): Promise<ExerciseCases> {
  const face = await drawnFace();
  const passport = await generateDocument({ format: 'TD3', fields: { ...randomIdentity(1), document_code: 'P' }, portrait: face, seed: 1 });
  return {
    passport: exercise({ document_front: passport.image }, 'passport'),
    card: async () => {
      const card = await generateDocument({ format: 'TD1', fields: randomIdentity(2), portrait: face, seed: 2 });
      // The card's front: the passport page stands in (only its quality is read, its zone is not).
      return exercise({ document_front: passport.image, document_back: card.image }, 'id_card');
    },
    selfie: face,
  };
}

/**
 * A face drawn in SVG (hair, skin, eyes, brows, nose, mouth, shoulders), slightly blurred like a
 * photo: human's detector finds it (score 1, its whole mesh), so every face model runs on it.
 */
async function drawnFace(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="360">
<defs><radialGradient id="skin" cx="50%" cy="45%" r="60%"><stop offset="0%" stop-color="#e8c0a0"/><stop offset="100%" stop-color="#b07850"/></radialGradient></defs>
<rect width="300" height="360" fill="#7a8a9a"/>
<ellipse cx="150" cy="90" rx="105" ry="70" fill="#3a2a1a"/>
<ellipse cx="150" cy="175" rx="85" ry="110" fill="url(#skin)"/>
<ellipse cx="115" cy="160" rx="16" ry="8" fill="#fff"/><circle cx="115" cy="160" r="7" fill="#3a2a1a"/>
<ellipse cx="185" cy="160" rx="16" ry="8" fill="#fff"/><circle cx="185" cy="160" r="7" fill="#3a2a1a"/>
<path d="M97 140 Q115 130 133 140" stroke="#3a2a1a" stroke-width="5" fill="none"/>
<path d="M167 140 Q185 130 203 140" stroke="#3a2a1a" stroke-width="5" fill="none"/>
<path d="M150 165 L140 210 Q150 218 160 210" stroke="#9a6040" stroke-width="3" fill="none"/>
<path d="M120 240 Q150 258 180 240" stroke="#a04040" stroke-width="7" fill="none"/>
<rect x="60" y="285" width="180" height="75" fill="#304060"/>
</svg>`;
  return sharp(Buffer.from(svg)).blur(1.2).jpeg().toBuffer();
}

function exercise(pieces: CaseInput['pieces'], type: 'passport' | 'id_card'): CaseInput {
  return {
    pieces,
    declared: null,
    entered: null,
    questionnaire: null,
    flow: { ...STANDARD_FLOW, steps: ['document'], documents: [{ country: '*', types: [type] }], liveness: { challenges: [] } },
    document: { country: 'FR', type },
    environment: 'sandbox',
    now: new Date(0),
  };
}
