import { decodeImage, toRgba, toSharp, type DecodedImage } from './decode.ts';
import { barcodeRegions } from './barcode-regions.ts';
import { warpDocument, type Point } from './locate.ts';
import { loadZxingReader } from './zxing.ts';

/**
 * Reads a document's 2-D barcodes (PDF417, QR) with zxing-wasm. Only when the photo as it is gives
 * nothing are variants tried, within a pixel budget: the straightened document, straightened
 * barcode-like patches (zxing reads tilted PDF417 badly), another binarizer and an enlarged copy.
 */
export interface Barcode {
  format: string; // zxing's name: 'PDF417', 'QRCode', 'DataMatrix', 'Aztec'
  text: string;
}

const FORMATS = ['PDF417', 'QRCode', 'DataMatrix', 'Aztec'] as const;
type Binarizer = 'LocalAverage' | 'GlobalHistogram';

export interface ReadBarcodesOptions {
  /** The document's corners in the image (from the quality check): adds a straightened variant. */
  documentCorners?: Point[];
}

/** Symbols zxing located but could not decode, by pass; only formats that do not appear by chance in print. */
const COUNTED_ERRORS: ReadonlySet<string> = new Set(['PDF417', 'QRCode']);

interface PassResult {
  barcodes: Barcode[];
  undecodable: number;
}

async function readPass(image: DecodedImage, binarizer: Binarizer, denoise: boolean, spent?: { pixels: number }): Promise<PassResult> {
  const zxing = await loadZxingReader();
  if (spent) spent.pixels += image.width * image.height;
  const results = await zxing.readBarcodes(
    { data: toRgba(image), width: image.width, height: image.height, colorSpace: 'srgb' } as ImageData,
    { formats: [...FORMATS], textMode: 'Plain', tryHarder: true, tryRotate: true, tryInvert: true, binarizer, tryDenoise: denoise, returnErrors: true },
  );
  const seen = new Set<string>();
  const barcodes: Barcode[] = [];
  let undecodable = 0;
  for (const r of results) {
    if (!r.isValid) {
      // DataMatrix "finds" appear in guilloches and fine print: only PDF417 and QR errors count.
      if (COUNTED_ERRORS.has(r.format)) undecodable++;
      continue;
    }
    if (seen.has(r.format + r.text)) continue;
    seen.add(r.format + r.text);
    barcodes.push({ format: r.format, text: r.text });
  }
  return { barcodes, undecodable };
}

async function resized(image: DecodedImage, factor: number): Promise<DecodedImage> {
  const { data, info } = await toSharp(image)
    .resize({ width: Math.round(image.width * factor), kernel: 'cubic' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: image.channels };
}

/** Largest side of the enlarged variant: zxing's time grows with pixels. */
const MAX_ENLARGED_SIDE = 2000;
/** Whole-image second passes only below this many pixels (a phone photo's full passes cost seconds). */
const MAX_PIXELS_FOR_FULL_RETRY = 1_500_000;
/**
 * Pixels the variants may hand to zxing in all (the first pass always runs). A budget in pixels,
 * not milliseconds, bounds the cost and keeps the result independent of the machine's load.
 */
const BARCODE_PIXEL_BUDGET = 4_000_000;

export interface BarcodeReading {
  barcodes: Barcode[];
  /** PDF417 or QR symbols located but not decoded (damaged, blurred, cut), when none decoded. */
  undecodable: number;
}

/** The barcodes read, or how many symbols were seen but could not be decoded. */
export async function readBarcodesDetailed(input: Uint8Array | DecodedImage, options: ReadBarcodesOptions = {}): Promise<BarcodeReading> {
  const spent = { pixels: 0 };
  const over = () => spent.pixels > BARCODE_PIXEL_BUDGET;
  const image = input instanceof Uint8Array ? await decodeImage(input) : input;
  const first = await readPass(image, 'LocalAverage', false);
  if (first.barcodes.length) return first;
  let undecodable = first.undecodable;
  // Variants, cheapest and likeliest first; each runs only while the budget lasts.
  const variants: (() => Promise<PassResult>)[] = [];
  const corners = options.documentCorners;
  if (corners) {
    const width = Math.round(Math.hypot(corners[1]![0] - corners[0]![0], corners[1]![1] - corners[0]![1]));
    variants.push(async () => readPass(await warpDocument(image, corners, Math.max(16, width)), 'LocalAverage', false, spent));
  }
  // Straightened crops of barcode-like patches: small, and they undo the tilt.
  variants.push(async () => {
    let seen = 0;
    for (const region of await barcodeRegions(image)) {
      const found = await readPass(region, 'LocalAverage', false, spent);
      if (found.barcodes.length) return found;
      seen = Math.max(seen, found.undecodable);
      if (Math.max(region.width, region.height) * 2 <= MAX_ENLARGED_SIDE && !over()) {
        const enlarged = await readPass(await resized(region, 2), 'LocalAverage', false, spent);
        if (enlarged.barcodes.length) return enlarged;
      }
      if (over()) break;
    }
    return { barcodes: [], undecodable: seen };
  });
  if (image.width * image.height <= MAX_PIXELS_FOR_FULL_RETRY) {
    variants.push(() => readPass(image, 'GlobalHistogram', true, spent));
    if (Math.max(image.width, image.height) * 2 <= MAX_ENLARGED_SIDE) variants.push(async () => readPass(await resized(image, 2), 'LocalAverage', false, spent));
  }
  for (const variant of variants) {
    if (over()) break;
    const found = await variant();
    if (found.barcodes.length) return found;
    undecodable = Math.max(undecodable, found.undecodable);
  }
  return { barcodes: [], undecodable };
}

export async function readBarcodes(input: Uint8Array | DecodedImage, options: ReadBarcodesOptions = {}): Promise<Barcode[]> {
  return (await readBarcodesDetailed(input, options)).barcodes;
}
