import sharp from 'sharp';
import { generateDocument, type GenerateOptions } from '../generate.ts';
import { degradeCard, type DegradedPhoto } from '../degrade.ts';
import { createRng } from '../rng.ts';
import { opaqueRgba, presentedImage } from './content.ts';
import { photocopy } from './photocopy.ts';
import { screenReplay } from './screen-replay.ts';

/**
 * The document presentation-attack species the generator makes (every image it makes is
 * generated, and is reported as such): a document shown on a screen and photographed, a
 * black-and-white photocopy, and a faded colour copy or print, each photographed by a phone.
 */
export const DOCUMENT_ATTACK_SPECIES = ['screen_replay', 'photocopy_grey', 'photocopy_colour'] as const;
export type DocumentAttackSpecies = (typeof DOCUMENT_ATTACK_SPECIES)[number];

/** Width in millimetres of what is copied: an ID-1 card or a passport data page. */
const WIDTH_MM = { TD1: 85.6, TD3: 125 } as const;

/**
 * An attack on a generated document: the screen shows the ordinary phone photo of the card (what
 * a fraudster has); a copy is made of the card itself. Same options and seed, same bytes.
 */
export async function generateDocumentAttack(species: DocumentAttackSpecies, opts: Omit<GenerateOptions, 'degrade'>): Promise<DegradedPhoto> {
  const rng = createRng(opts.seed * 31 + 7);
  if (species === 'screen_replay') {
    // The photo zoomed on the card, as one shows a document on a screen to a camera (a little of
    // the table around it left).
    const photo = await generateDocument(opts);
    const b = photo.documentBox;
    const margin = Math.round(b.width * rng.range(0.01, 0.06));
    const left = Math.max(0, b.x - margin);
    const top = Math.max(0, b.y - margin);
    const zoomed = await sharp(photo.image)
      .extract({ left, top, width: Math.min(photo.width, b.x + b.width + margin) - left, height: Math.min(photo.height, b.y + b.height + margin) - top })
      .toBuffer();
    return screenReplay(await presentedImage(zoomed), rng);
  }
  const flat = await generateDocument({ ...opts, degrade: false });
  return photocopy(await presentedImage(flat.image), species === 'photocopy_grey' ? 'grey' : 'colour', rng, { documentWidthMm: WIDTH_MM[opts.format] });
}

/** An attack on a real document's image (a fixture scan or photo): shown on a screen, or copied at passport-page size. */
export async function imageAttack(species: DocumentAttackSpecies, bytes: Uint8Array, seed: number): Promise<DegradedPhoto> {
  const rng = createRng(seed * 31 + 11);
  const content = await presentedImage(bytes);
  if (species === 'screen_replay') return screenReplay(content, rng);
  const widthMm = content.width / content.height > 1.55 ? WIDTH_MM.TD1 : WIDTH_MM.TD3;
  return photocopy(content, species === 'photocopy_grey' ? 'grey' : 'colour', rng, { documentWidthMm: widthMm });
}

/**
 * The genuine counterpart of imageAttack: the same real document's image photographed by the
 * same simulated phone, with no screen or paper between. A detector that tells this from the
 * attacks made from the same image tells the medium, not the document's content or the camera.
 */
export async function imagePhotographed(bytes: Uint8Array, seed: number): Promise<DegradedPhoto> {
  return degradeCard(opaqueRgba(await presentedImage(bytes)), createRng(seed * 31 + 13), { outputWidth: 1600 });
}
