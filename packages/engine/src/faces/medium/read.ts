import type { FaceFinding } from '../analyse-face.ts';
import { decodeForFaces, type RgbImage } from '../decode-image.ts';
import type { FaceBox } from '../../types.ts';
import { antiSpoofClasses, LIVE_CLASS, loadAntiSpoofNet } from './anti-spoof-net.ts';
import { judgeStillMedium, type StillMediumJudgement } from './judge.ts';
import { loadTextureNet, textureLogit } from './texture-net.ts';

/**
 * Longest side the medium is judged at. The face models see at most 640 px, which smooths away
 * a screen's grid and a print's dots; the journey sends selfies of up to 1920 px, judged whole.
 */
const MEDIUM_MAX_SIDE = 2048;

type FoundFace = Pick<FaceFinding, 'box' | 'frame' | 'antispoof' | 'liveness'>;

/** The image at the medium's size, and the face's box (found at the face models' size) brought to it. */
export async function decodeWithBox(image: Uint8Array, face: Pick<FaceFinding, 'box' | 'frame'>): Promise<{ rgb: RgbImage; box: FaceBox }> {
  const rgb = await decodeForFaces(image, MEDIUM_MAX_SIDE);
  const k = rgb.width / face.frame.width;
  return { rgb, box: { x: face.box.x * k, y: face.box.y * k, width: face.box.width * k, height: face.box.height * k } };
}

/** The medium of the face `face` (as analyseFaces found it) on this image's bytes. */
export async function judgeImageMedium(image: Uint8Array, face: FoundFace): Promise<StillMediumJudgement & { networkClasses: number[] }> {
  const { rgb, box } = await decodeWithBox(image, face);
  const networkClasses = await antiSpoofClasses(await loadAntiSpoofNet(), rgb, box);
  const texture = await textureLogit(await loadTextureNet(), rgb, box);
  return { ...judgeStillMedium(rgb, { box, antispoof: face.antispoof, liveness: face.liveness, network: networkClasses[LIVE_CLASS], ...(texture === null ? {} : { texture }) }), networkClasses };
}

/**
 * The trained network's probability that this face is live, alone: what a live sequence's frames
 * get (small frames, where the other measures of the medium have nothing left to read).
 */
export async function networkLiveOf(image: Uint8Array, face: Pick<FaceFinding, 'box' | 'frame'>): Promise<number> {
  const { rgb, box } = await decodeWithBox(image, face);
  return (await antiSpoofClasses(await loadAntiSpoofNet(), rgb, box))[LIVE_CLASS]!;
}
