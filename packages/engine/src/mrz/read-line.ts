/**
 * Reads one located MRZ line crop of unknown length: every plausible length is aligned on one scan
 * (align.ts), flat and slanted, and the best fit wins, the MRZ lengths preferred in a near tie.
 * The characters get the letters-beside-letters rule (kind-context.ts) but no field rules: a lone
 * line does not say which line of which format it is.
 */
import { alignSlanted, alignedVotes, scanLine, type Alignment } from './align.ts';
import { loadMrzClassifier } from './classifier.ts';
import { charactersInContext } from './kind-context.ts';
import { findLineGrid, type GreyImage } from './segment.ts';

/** Pitch of MRZ prints in cap heights: the lengths tried follow from the ink's extent. */
const PITCH_CAPS: [number, number] = [0.6, 1.3];
const MIN_COUNT = 8;
const MAX_COUNT = 64;
/**
 * Preference for the MRZ lengths (30, 36, 44) over others, in mean log-probability per centre:
 * lines of other lengths exist (partial crops) but are rare, and a near tie goes to the MRZ.
 */
const STANDARD_BONUS = 0.05;

/** The text of one MRZ line crop, or null when it holds no plausible text line. */
export async function readMrzLineCrop(line: GreyImage): Promise<string | null> {
  const w = await loadMrzClassifier();
  const band = findLineGrid(line, 30, { curved: false });
  if (!band) return null;
  const scan = await scanLine(w, line, band);
  const extent = band.inkEnd - band.inkStart;
  const lo = Math.max(MIN_COUNT, Math.floor(extent / (PITCH_CAPS[1] * band.bandHeight)));
  const hi = Math.min(MAX_COUNT, Math.ceil(extent / (PITCH_CAPS[0] * band.bandHeight)));
  let best: { a: Alignment; s: number } | null = null;
  for (let n = lo; n <= hi; n++) {
    const a = alignSlanted(scan, n);
    if (!a) continue;
    const s = a.fit + ([30, 36, 44].includes(n) ? STANDARD_BONUS : 0);
    if (!best || s > best.s) best = { a, s };
  }
  if (!best) return null;
  return charactersInContext(alignedVotes(scan, best.a).mean, best.a.count);
}
