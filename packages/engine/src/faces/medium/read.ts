import type { FaceFinding } from '../analyse-face.ts';
import { decodeForFaces } from '../decode-image.ts';
import { antiSpoofClasses, LIVE_CLASS, loadAntiSpoofNet } from './anti-spoof-net.ts';
import { judgeStillMedium, type StillMediumJudgement } from './judge.ts';

/**
 * Longest side the medium is judged at. The face models see at most 640 px, which smooths away
 * a screen's grid and a print's dots; the journey sends selfies of up to 1920 px, judged whole.
 */
const MEDIUM_MAX_SIDE = 2048;

/** The medium of the face `face` (as analyseFaces found it) on this image's bytes. */
export async function judgeImageMedium(image: Uint8Array, face: Pick<FaceFinding, 'box' | 'frame' | 'antispoof' | 'liveness'>): Promise<StillMediumJudgement & { networkClasses: number[] }> {
  const rgb = await decodeForFaces(image, MEDIUM_MAX_SIDE);
  const k = rgb.width / face.frame.width;
  const box = { x: face.box.x * k, y: face.box.y * k, width: face.box.width * k, height: face.box.height * k };
  const networkClasses = await antiSpoofClasses(await loadAntiSpoofNet(), rgb, box);
  return { ...judgeStillMedium(rgb, { box, antispoof: face.antispoof, liveness: face.liveness, network: networkClasses[LIVE_CLASS] }), networkClasses };
}
