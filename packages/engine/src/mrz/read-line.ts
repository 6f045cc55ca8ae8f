/**
 * Reads one MRZ line crop already located (line datasets, a reader handed single lines). Its
 * length is not known: the classifier's "no glyph centred" output says how well N centres fit the
 * ink (N too many or too few puts centres between glyphs somewhere). The line is scanned once
 * (align.ts) and every N plausible for the ink's extent and height is aligned on the scan, flat
 * and with pitches growing steadily along the line (a line seen at a slant: glyphs and gaps
 * shrink towards the far end, which one pitch cannot follow over 30 to 44 glyphs); the best fit
 * wins, the MRZ lengths (30, 36, 44) preferred in a near tie.
 *
 * The characters are the classifier's, decoded with the rule that letters neighbour letters and
 * digits digits (kind-context.ts), but without the field rules the zone reader applies (read.ts):
 * alone, a line does not say which line of which format it is, and datasets hold lines of no
 * format at all. Tried and dropped: decoding each line under every (format, line) hypothesis made
 * more lines wrong than right on mrz-lines, a check digit passing by chance one time in ten.
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
