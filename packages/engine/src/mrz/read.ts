/**
 * Reads the machine-readable zone of a document photo: locate the lines, cut and classify cells on
 * several variants of each crop, average the variants per character, restrict each position to
 * its field, then parse and verify. Check digits repair only what they can prove; positions they
 * cannot tell apart are decided by the variants' vote, and an unsettled vote caps the confidence.
 */
import type { MrzReading } from '../types.ts';
import { openImage } from '../document/decode.ts';
import { alignCount, alignedVotes, scanLine } from './align.ts';
import { mrzCharValue } from './check-digit.ts';
import { CLASS_COUNT, bestCharacters, loadMrzClassifier, type MrzClassifier } from './classifier.ts';
import { isIcaoCode, isSpecimenCode } from './codes.ts';
import { correctMrz } from './correct.ts';
import { charKinds, checksFor, detectLayout, type MrzLayout, type Span } from './formats.ts';
import { cropLine, locateMrz, type MrzCandidate, type TextLine } from './locate.ts';
import { parseMrz } from './parse.ts';
import { recogniseOnGrid, type LineRead } from './recognizer-line.ts';
import { findLineGrid, type GreyImage, type GridOptions, type LineGrid } from './segment.ts';
import { checkPasses } from './verify.ts';
import { ranked, vote, type Votes } from './votes.ts';

export interface ReadMrzOptions {
  /** Accept specimen codes (`UTO`): the sandbox only. */
  allowSpecimen: boolean;
  now?: Date;
}

/** Readings below this confidence must not be trusted, whatever their check digits say. */
export const MRZ_ACCEPT_CONFIDENCE = 0.6;

export interface MrzReadDetail {
  reading: MrzReading | null;
  /** Positions (in the joined lines) the variants' vote did not settle and no check digit proves. */
  uncertain: number[];
  /** Clockwise rotation (degrees) of the photo at which the zone was read. */
  rotation: number;
  /** The zone was read upside down (its located lines in reverse order, crops turned half). */
  flipped: boolean;
  /** The zone's lines as located, in the decoded image (for crops handed to another reader). */
  candidate: MrzCandidate | null;
  /** The decoded, rotated grey image the candidate refers to. */
  image: GreyImage | null;
  /** Located zones read, each in one direction (what the search for the zone's orientation cost). */
  reads: number;
}

/** Decodes any image (EXIF orientation applied) to grey, scaled so its larger side is 1200–2400 px. */
export async function decodeGrey(image: Uint8Array): Promise<GreyImage> {
  const meta = await openImage(image).rotate().metadata();
  const w0 = meta.autoOrient?.width ?? meta.width ?? 0;
  const h0 = meta.autoOrient?.height ?? meta.height ?? 0;
  const big = Math.max(w0, h0);
  // Small images are enlarged (a 275-pixel-wide passport has 6-pixel characters): the grid and
  // the cells are then sampled from a smooth cubic interpolation rather than raw pixels.
  const scale = big < 1200 ? 1200 / big : big > 2400 ? 2400 / big : 1;
  let pipeline = openImage(image).rotate().greyscale();
  if (scale !== 1) pipeline = pipeline.resize(Math.max(1, Math.round(w0 * scale)), Math.max(1, Math.round(h0 * scale)), { kernel: 'cubic' });
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error('grey decoding gave several channels');
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/** The image turned a quarter clockwise. */
function rotateQuarter(g: GreyImage): GreyImage {
  const { width, height, data } = g;
  const out = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) out[x * height + (height - 1 - y)] = data[y * width + x]!;
  }
  return { data: out, width: height, height: width };
}

function rotateHalf(g: GreyImage): GreyImage {
  const out = Uint8Array.from(g.data).reverse();
  return { data: out, width: g.width, height: g.height };
}

/** Crop variants of a line: centred, nudged up and down across the line, tight and loose. */
const CROPS = [
  { padY: 0.75, across: 0 },
  { padY: 0.55, across: 0.12 },
  { padY: 0.55, across: -0.12 },
  { padY: 1.1, across: 0 },
];
const SHIFTS = [0, -0.07, 0.07];

/** Grid searches tried on each line; the classifier's surest reading picks one for all variants. */
const GRID_MODES: GridOptions[] = [{ curved: true }, { curved: false }, { curved: true, trim: true }];

function lineCrop(g: GreyImage, line: TextLine, angle: number, crop: { padY: number; across: number }, flip: boolean): GreyImage {
  const img = cropLine(g, line, angle, 0.8, crop.padY, flip ? -crop.across : crop.across);
  return flip ? rotateHalf(img) : img;
}

const gridKey = (g: LineGrid) => `${g.count}|${g.x0}|${g.pitch}|${g.curve}|${g.centreA}|${g.centreB}|${g.bandHeight}|${g.ink}|${g.paper}|${g.inkStart}|${g.inkEnd}`;
/** What the aligned read depends on: the text band and the ink's extent (not the cells). */
const bandKey = (g: LineGrid) => `${g.centreA}|${g.centreB}|${g.bandHeight}|${g.ink}|${g.paper}|${g.inkStart}|${g.inkEnd}`;

function cached<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  if (map.has(key)) return map.get(key)!;
  const v = make();
  map.set(key, v);
  return v;
}

/**
 * The work one candidate's reads have in common, done once: the reader reads each line several
 * times over (choosing the line length, choosing the grid search, every crop variant, then each
 * retry on another grid), and these share crops, grids, cell reads and aligned scans. Everything
 * here is a pure function of its key (the candidate's image, angle and direction are fixed), so
 * a result taken from the memo is the one computing it again would give.
 */
class ReadMemo {
  private readonly crops = new Map<TextLine, Map<object, GreyImage>>();
  private readonly grids = new WeakMap<GreyImage, Map<string, LineGrid | null>>();
  private readonly reads = new WeakMap<GreyImage, Map<string, Promise<LineRead>>>();
  private readonly aligned = new WeakMap<GreyImage, Map<string, Promise<LineRead | null>>>();

  constructor(
    private readonly w: MrzClassifier,
    private readonly g: GreyImage,
    private readonly angle: number,
    private readonly flip: boolean,
  ) {}

  crop(line: TextLine, crop: (typeof CROPS)[number]): GreyImage {
    return cached(cached(this.crops, line, () => new Map()), crop, () => lineCrop(this.g, line, this.angle, crop, this.flip));
  }

  grid(img: GreyImage, count: number, mode: GridOptions): LineGrid | null {
    const byImage = this.grids.get(img) ?? new Map<string, LineGrid | null>();
    this.grids.set(img, byImage);
    return cached(byImage, `${count}|${JSON.stringify(mode)}`, () => findLineGrid(img, count, mode));
  }

  read(img: GreyImage, grid: LineGrid, shift = 0): Promise<LineRead> {
    const byImage = this.reads.get(img) ?? new Map<string, Promise<LineRead>>();
    this.reads.set(img, byImage);
    return cached(byImage, `${gridKey(grid)}|${shift}`, () => recogniseOnGrid(this.w, img, grid, shift));
  }

  alignedRead(img: GreyImage, grid: LineGrid, count: number): Promise<LineRead | null> {
    const byImage = this.aligned.get(img) ?? new Map<string, Promise<LineRead | null>>();
    this.aligned.set(img, byImage);
    return cached(byImage, `${count}|${bandKey(grid)}`, () => alignedRead(this.w, img, grid, count));
  }
}

/** The grid searches of a line: GRID_MODES, and only the ink where the locator saw the line. */
function gridModes(base: GreyImage, line: TextLine): GridOptions[] {
  // A textured margin can look like ink: the locator's extent leaves it out.
  const from = (base.width - line.length) / 2 - line.height * 0.4;
  return [...GRID_MODES, { curved: true, within: [from, base.width - from] }];
}

/**
 * A grid hypothesis for retries: one of gridModes, or (past them) the line read as count + 1
 * straight cells of which the first or the last is not a character (a mark or a textured margin
 * the grid search took for a glyph at one end).
 */
type GridChoice = { mode: GridOptions } | { extra: 'first' | 'last' };
const RETRY_CHOICES = GRID_MODES.length + 1 + 2;

function choiceAt(base: GreyImage, line: TextLine, i: number): GridChoice {
  const modes = gridModes(base, line);
  return i < modes.length ? { mode: modes[i]! } : { extra: i === modes.length ? 'first' : 'last' };
}

function gridOf(memo: ReadMemo, img: GreyImage, count: number, choice: GridChoice): LineGrid | null {
  if ('mode' in choice) return memo.grid(img, count, choice.mode);
  const wider = memo.grid(img, count + 1, { curved: false });
  if (!wider) return null;
  return { ...wider, count, x0: choice.extra === 'first' ? wider.x0 + wider.pitch : wider.x0 };
}

/**
 * Reads of one line on all crop variants. `all` false: one quick read (for the line length).
 * `forced`: that grid hypothesis (choiceAt) instead of the surest grid mode.
 */
async function lineReads(memo: ReadMemo, line: TextLine, count: number, all: boolean, forced?: number): Promise<LineRead[]> {
  let choice: GridChoice = { mode: GRID_MODES[0]! };
  if (all && forced !== undefined) {
    choice = choiceAt(memo.crop(line, CROPS[0]!), line, forced);
  } else if (all) {
    const base = memo.crop(line, CROPS[0]!);
    let bestScore = -Infinity;
    for (const m of gridModes(base, line)) {
      const grid = memo.grid(base, count, m);
      if (!grid) continue;
      const r = await memo.read(base, grid);
      if (r.score - grid.boundaryInk > bestScore) {
        bestScore = r.score - grid.boundaryInk;
        choice = { mode: m };
      }
    }
  }
  // Every variant's cells are classified together (one runtime call each, in this order).
  const reads: Promise<LineRead | null>[] = [];
  for (const crop of all ? CROPS : CROPS.slice(0, 1)) {
    const img = memo.crop(line, crop);
    const grid = gridOf(memo, img, count, choice);
    if (!grid) continue;
    for (const shift of all ? SHIFTS : SHIFTS.slice(0, 1)) reads.push(memo.read(img, grid, shift));
    // The grid read alone did better than the aligned read alone on specimens and generated
    // documents; both together did better than either. Not on a grid with an extra cell at one
    // end: its ink extent holds the mark the extra cell stands for.
    if (all && !('extra' in choice)) reads.push(memo.alignedRead(img, grid, count));
  }
  return (await Promise.all(reads)).filter((r): r is LineRead => r !== null);
}

/**
 * The line read on centres aligned to its glyphs (align.ts) rather than on the rigid grid: one
 * more variant for the vote, right where a print drifts off the grid.
 */
async function alignedRead(w: MrzClassifier, img: GreyImage, grid: LineGrid, count: number): Promise<LineRead | null> {
  const scan = await scanLine(w, img, grid);
  const a = alignCount(scan, count);
  if (!a) return null;
  const v = alignedVotes(scan, a);
  const { text, logSum } = bestCharacters(v.mean, count);
  return { count, grid, probs: v.mean, text, score: logSum / count + a.fit, fit: a.fit };
}

/** A runner-up below this probability is not a reading the code list has to rule out. */
const PLAUSIBLE = 0.03;

/** First letters of ICAO document codes: passports, visas, and the A, C and I travel documents. */
const DOCUMENT_KINDS = 'ACIPV';

function codeSpans(layout: MrzLayout): Span[] {
  return [layout.issuingCountry, layout.nationality].filter((s): s is Span => !!s);
}

function split(text: string, n: number, len: number): string[] {
  return Array.from({ length: n }, (_, i) => text.slice(i * len, (i + 1) * len));
}

interface Decoded {
  reading: MrzReading;
  uncertain: number[];
  /** Mean log-probability of the chosen characters. */
  score: number;
}

/**
 * From per-position votes to a reading: field-type masks, then check-digit repair by the cheapest
 * unique change among runner-up characters, then the uncertainty of each position.
 */
function decode(votes: Votes, lineCount: number, lineLength: number, opts: ReadMrzOptions): Decoded | null {
  const provisional = split(
    Array.from({ length: votes.count }, (_, k) => ranked(votes, k, undefined)[0]!.c).join(''),
    lineCount,
    lineLength,
  );
  const layout: MrzLayout | null = detectLayout(provisional);
  if (!layout) return null;
  const kinds = charKinds(layout);
  const options = Array.from({ length: votes.count }, (_, k) => ranked(votes, k, kinds[k]));
  const chars = options.map((o) => o[0]!.c);
  let text = chars.join('');
  const checksFail = (t: string) => checksFor(layout, t).filter((c) => !checkPasses(c, t));

  const failing = checksFail(text);
  const repaired = new Set<number>();
  if (failing.length > 0) {
    // Positions under a failing check (and their check digits), with their runner-up characters.
    const positions = new Set<number>();
    for (const c of failing) {
      positions.add(c.digit);
      for (const s of c.over) for (let i = s.start; i < s.start + s.length; i++) positions.add(i);
    }
    const changes: { pos: number; c: string; cost: number }[] = [];
    for (const pos of positions) {
      const o = options[pos]!;
      for (let j = 1; j < o.length && j < 4; j++) {
        if (o[j]!.p < 0.01) break;
        changes.push({ pos, c: o[j]!.c, cost: Math.log(o[0]!.p + 1e-6) - Math.log(o[j]!.p + 1e-6) });
      }
    }
    changes.sort((a, b) => a.cost - b.cost);
    const solutions: { edits: typeof changes; cost: number }[] = [];
    const apply = (edits: typeof changes) => {
      const out = chars.slice();
      for (const e of edits) out[e.pos] = e.c;
      return out.join('');
    };
    for (const e of changes) if (checksFail(apply([e])).length === 0) solutions.push({ edits: [e], cost: e.cost });
    const top = changes.slice(0, 14);
    for (let i = 0; i < top.length; i++) {
      for (let j = i + 1; j < top.length; j++) {
        if (top[i]!.pos === top[j]!.pos) continue;
        const edits = [top[i]!, top[j]!];
        if (checksFail(apply(edits)).length === 0) solutions.push({ edits, cost: top[i]!.cost + top[j]!.cost });
      }
    }
    solutions.sort((a, b) => a.cost - b.cost);
    // Unique enough: the next repair is at least e² times less likely.
    if (solutions.length > 0 && (solutions.length === 1 || solutions[1]!.cost - solutions[0]!.cost > 2)) {
      text = apply(solutions[0]!.edits);
      for (const e of solutions[0]!.edits) repaired.add(e.pos);
    }
  }

  if (checksFail(text).length > 0) {
    // Letter↔digit confusions the classifier gave no runner-up for (O read for 0 in a document
    // number): parse.ts corrects them only when exactly one correction satisfies every check.
    const corrected = correctMrz(split(text, lineCount, lineLength));
    const fixed = corrected.lines.join('');
    if (checksFail(fixed).length === 0) {
      for (let k = 0; k < text.length; k++) if (fixed[k] !== text[k]) repaired.add(k);
      text = fixed;
    }
  }

  // The issuing state and the nationality must be codes of the list: an invalid code is repaired
  // by the one plausible runner-up that makes it valid, as check digits repair numbers.
  const codeOk = (code: string) => isIcaoCode(code) || (opts.allowSpecimen && isSpecimenCode(code));
  const spans = codeSpans(layout);
  for (const span of spans) {
    const code = text.slice(span.start, span.start + span.length);
    if (codeOk(code)) continue;
    const fixes: { pos: number; c: string; cost: number }[] = [];
    for (let pos = span.start; pos < span.start + span.length; pos++) {
      const o = options[pos]!;
      const here = o.find((x) => x.c === text[pos])!;
      for (const alt of o) {
        if (alt.c === text[pos] || alt.p < PLAUSIBLE) continue;
        const fixed = code.slice(0, pos - span.start) + alt.c + code.slice(pos - span.start + 1);
        if (codeOk(fixed)) fixes.push({ pos, c: alt.c, cost: Math.log(here.p + 1e-6) - Math.log(alt.p + 1e-6) });
      }
    }
    fixes.sort((a, b) => a.cost - b.cost);
    if (fixes.length === 1 || (fixes.length > 1 && fixes[1]!.cost - fixes[0]!.cost > 2)) {
      const f = fixes[0]!;
      // Not counted as repaired: the uncertainty rule below still asks the list to prove it.
      text = text.slice(0, f.pos) + f.c + text.slice(f.pos + 1);
    }
  }

  const lines = split(text, lineCount, lineLength);
  const reading = parseMrz(lines, { allowSpecimen: opts.allowSpecimen, now: opts.now });
  if (!reading) return null;

  // Which positions does a passing check cover?
  const covered = new Set<number>();
  for (const c of checksFor(layout, text)) {
    if (!checkPasses(c, text)) continue;
    covered.add(c.digit);
    for (const s of c.over) for (let i = s.start; i < s.start + s.length; i++) covered.add(i);
  }
  // A letter of a valid code whose every plausible rival would make it no code is proven by the list.
  const provenByCodeList = (k: number): boolean => {
    const span = spans.find((sp) => k >= sp.start && k < sp.start + sp.length);
    if (!span) return false;
    const code = text.slice(span.start, span.start + span.length);
    if (!codeOk(code)) return false;
    const at = k - span.start;
    return options[k]!.every((o) => o.c === text[k] || o.p < PLAUSIBLE || !codeOk(code.slice(0, at) + o.c + code.slice(at + 1)));
  };
  // The document code's first letter says the kind of document: ICAO has only these.
  const provenAsDocumentKind = (k: number): boolean =>
    k === layout.documentCode.start &&
    DOCUMENT_KINDS.includes(text[k]!) &&
    options[k]!.every((o) => o.c === text[k] || o.p < PLAUSIBLE || !DOCUMENT_KINDS.includes(o.c));
  const uncertain: number[] = [];
  let sumP = 0;
  let sumLog = 0;
  for (let k = 0; k < text.length; k++) {
    const o = options[k]!;
    const chosen = o.find((x) => x.c === text[k])!;
    sumP += chosen.p;
    sumLog += Math.log(chosen.p + 1e-6);
    if (repaired.has(k)) continue; // decided by a check digit against a different-valued runner-up
    const rival = o.find((x) => x.c !== text[k])!;
    const settled = chosen.p >= 0.6 && chosen.share >= 0.6 && chosen.p - rival.p >= 0.3;
    if (settled) continue;
    // A check digit proves the position against a rival of a different value modulo 10 only.
    const provable = covered.has(k) && mrzCharValue(rival.c) % 10 !== mrzCharValue(text[k]!) % 10;
    if ((!provable && !provenByCodeList(k) && !provenAsDocumentKind(k)) || chosen.p < 0.3) uncertain.push(k);
  }
  const mean = sumP / text.length;
  reading.confidence = Number((uncertain.length > 0 ? Math.min(mean, MRZ_ACCEPT_CONFIDENCE - 0.1) : mean).toFixed(4));
  reading.corrections = repaired.size + text.split('').filter((c, k) => c !== chars[k]).length - repaired.size;
  return { reading, uncertain, score: sumLog / text.length };
}

/** Reads one located candidate, in one direction (flip: the zone is upside down). */
async function readCandidate(w: MrzClassifier, g: GreyImage, cand: MrzCandidate, flip: boolean, opts: ReadMrzOptions): Promise<Decoded | null> {
  const memo = new ReadMemo(w, g, cand.angle, flip);
  const lines = flip ? cand.lines.slice().reverse() : cand.lines;
  const lineCount = lines.length;
  // The format's line length: 30 for three lines; for two, whichever grid the classifier prefers.
  let lineLength = 30;
  if (lineCount === 2) {
    let best = -Infinity;
    for (const n of [44, 36]) {
      const firsts = await Promise.all(lines.map(async (l) => (await lineReads(memo, l, n, false))[0]));
      const s = firsts.reduce((a, r) => a + (r ? r.score - r.grid.boundaryInk : -10), 0);
      if (s > best) {
        best = s;
        lineLength = n;
      }
    }
  }
  const perLine = await Promise.all(lines.map((l) => lineReads(memo, l, lineLength, true)));
  if (perLine.some((r) => r.length === 0)) return null;
  const first = decodeLines(perLine, lineCount, lineLength, opts);
  if (!first || first.reading.checkDigitsValid) return first;
  // Check digits failing: a line's grid may be off by a cell (a textured margin taken for a
  // glyph). Each line is read again on the other grid searches; a reading whose checks then pass
  // is preferred (the checks, not the classifier's surety, judge the grid).
  // Only a zone read mostly sure is worth it (a wrong zone or a photo is not).
  if (!mostlySure(first)) return first;
  let best = first;
  for (let i = 0; i < lineCount; i++) {
    const seen = new Set(perLine[i]!.map((r) => `${r.grid.x0.toFixed(1)}:${r.grid.pitch.toFixed(2)}`));
    for (let m = 0; m < RETRY_CHOICES; m++) {
      const alt = await lineReads(memo, lines[i]!, lineLength, true, m);
      if (alt.length === 0 || alt.every((r) => seen.has(`${r.grid.x0.toFixed(1)}:${r.grid.pitch.toFixed(2)}`))) continue;
      const d = decodeLines(perLine.map((r, j) => (j === i ? alt : r)), lineCount, lineLength, opts);
      if (d && rank(d) > rank(best) && !lessSure(d, first)) best = d;
    }
    if (best.reading.checkDigitsValid) break;
  }
  return best;
}

function decodeLines(perLine: LineRead[][], lineCount: number, lineLength: number, opts: ReadMrzOptions): Decoded | null {
  const votes = perLine.map((r) => vote(r, lineLength));
  const joined: Votes = {
    mean: new Float32Array(lineCount * lineLength * CLASS_COUNT),
    share: new Float32Array(lineCount * lineLength * CLASS_COUNT),
    count: lineCount * lineLength,
  };
  votes.forEach((v, i) => {
    joined.mean.set(v.mean, i * lineLength * CLASS_COUNT);
    joined.share.set(v.share, i * lineLength * CLASS_COUNT);
  });
  return decode(joined, lineCount, lineLength, opts);
}

/**
 * How much a reading proves, to choose among candidates, directions and grids: each check digit
 * that passes (a chance of one in ten for a wrong field), all of them, valid codes (which the
 * code repair can also reach by chance), nothing left unsettled, then the classifier's surety.
 */
function rank(d: Decoded): number {
  const r = d.reading;
  return passedChecks(r) + (r.checkDigitsValid ? 2 : 0) + (r.codesValid ? 1 : 0) + (d.uncertain.length === 0 ? 1 : 0) + d.score / 10;
}

/** How many of its format's check digits a reading passes. */
function passedChecks(r: MrzReading): number {
  return checksFor(detectLayout(r.lines)!, r.lines.join('')).length - r.failedCheckDigits.length;
}

/**
 * A retry on another grid that passes its check digits only by giving up what the first read
 * proved (its codes on the list, its positions settled) is chance, not a better grid: with
 * enough alternatives, one passes a check digit in ten by luck. Seen on a card whose composite
 * check digit is misprinted: a grid one cell off made garbage that passed every check.
 */
function lessSure(retry: Decoded, first: Decoded): boolean {
  return (first.reading.codesValid && !retry.reading.codesValid) || retry.uncertain.length > first.uncertain.length;
}

/** At most MOSTLY_SURE_UNCERTAIN of a reading's characters left uncertain by the classifier. */
const MOSTLY_SURE_UNCERTAIN = 0.15;
function mostlySure(d: Decoded): boolean {
  return d.uncertain.length <= d.reading.lines.join('').length * MOSTLY_SURE_UNCERTAIN;
}

/** Every check digit passes but the composite's (a misprinted composite, or a misread it alone covers). */
function onlyCompositeFails(r: MrzReading): boolean {
  return r.failedCheckDigits.length === 1 && r.failedCheckDigits[0] === 'composite';
}

/**
 * A reading that settles the photo's orientation: its check digits pass, or all but the composite
 * while read mostly sure (a zone read mostly uncertain can pass its fields by chance).
 */
function orientationSettled(d: Decoded): boolean {
  return d.reading.checkDigitsValid || (onlyCompositeFails(d.reading) && mostlySure(d));
}

function good(d: Decoded | null): boolean {
  return !!d && d.reading.checkDigitsValid && d.reading.codesValid && d.uncertain.length === 0;
}

/** Everything the reader found: the reading (or null), its uncertain positions, where it was read. */
export async function readMrzDetailed(image: Uint8Array, opts: ReadMrzOptions): Promise<MrzReadDetail> {
  const w = await loadMrzClassifier();
  const upright = await decodeGrey(image);
  let best: { d: Decoded; rotation: number; flipped: boolean; cand: MrzCandidate; g: GreyImage } | null = null;
  let g = upright;
  let reads = 0;
  for (const rotation of [0, 90, 180, 270]) {
    if (rotation > 0) g = rotateQuarter(g);
    // Upside down zones are read by flipping the crops of the upright pass: 180 needs no locating.
    if (rotation === 180) continue;
    const candidates = await locateMrz(g);
    for (const cand of candidates.slice(0, 2)) {
      for (const flip of [false, true]) {
        const d = await readCandidate(w, g, cand, flip, opts);
        reads++;
        if (d && (!best || rank(d) > rank(best.d))) best = { d, rotation: flip ? (rotation + 180) % 360 : rotation, flipped: flip, cand, g };
        // A zone whose fields pass their check digits is the right way up: turning it cannot do better.
        if (d && orientationSettled(d)) break;
      }
      if (best && good(best.d)) break;
    }
    if (best && orientationSettled(best.d)) break;
  }
  if (!best) return { reading: null, uncertain: [], rotation: 0, flipped: false, candidate: null, image: null, reads };
  const r = best.d.reading;
  // A zone whose every check fails and whose characters are unsure is no zone (a photo, a page).
  // One whose every field passes its own check digit and only the composite fails is a zone (a
  // misprinted composite, or a misread the composite alone covers): kept, never accepted.
  const plausible = r.checkDigitsValid || onlyCompositeFails(r) || (passedChecks(r) > 0 && r.confidence >= 0.6);
  if (!plausible) return { reading: null, uncertain: [], rotation: 0, flipped: false, candidate: null, image: null, reads };
  return { reading: r, uncertain: best.d.uncertain, rotation: best.rotation, flipped: best.flipped, candidate: best.cand, image: best.g, reads };
}

/**
 * The machine-readable zone of a document photo, parsed and verified, or null when none is found.
 * Trust it only when `checkDigitsValid`, `codesValid` and `confidence >= MRZ_ACCEPT_CONFIDENCE`.
 */
export async function readMrz(image: Uint8Array, opts: ReadMrzOptions): Promise<MrzReading | null> {
  return (await readMrzDetailed(image, opts)).reading;
}
