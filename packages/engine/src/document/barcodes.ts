import { decodeImage, toRgba, toSharp, type DecodedImage } from './decode.ts';
import { barcodeRegions } from './barcode-regions.ts';
import { warpDocument, type Point } from './locate.ts';
import { loadZxingReader } from './zxing.ts';

/**
 * Reads the 2-D barcodes a document may carry (PDF417 on AAMVA licences and many ID cards, QR on
 * newer ones) with zxing-wasm, on pixels decoded by sharp (EXIF applied). The first pass reads
 * the photo as it is; only when it finds nothing are variants tried, cheapest first: another
 * binarizer with denoising (uneven light), the straightened document, an enlarged copy (small
 * modules), straightened crops of barcode-like patches (zxing reads PDF417 rows badly once they
 * tilt a few degrees), and small rotations (zxing tries 90° turns itself, not slight tilts).
 */
export interface Barcode {
  format: string; // zxing's name: 'PDF417', 'QRCode', 'DataMatrix', 'Aztec'
  text: string;
}

const FORMATS = ['PDF417', 'QRCode', 'DataMatrix', 'Aztec'] as const;
type Binarizer = 'LocalAverage' | 'GlobalHistogram';

interface Pass {
  image: () => Promise<DecodedImage>;
  binarizer: Binarizer;
  denoise: boolean;
}

export interface ReadBarcodesOptions {
  /** The document's corners in the image (from the quality check): adds a straightened variant. */
  documentCorners?: Point[];
}

async function readPass(image: DecodedImage, binarizer: Binarizer, denoise: boolean): Promise<Barcode[]> {
  const zxing = await loadZxingReader();
  const results = await zxing.readBarcodes(
    { data: toRgba(image), width: image.width, height: image.height, colorSpace: 'srgb' } as ImageData,
    { formats: [...FORMATS], textMode: 'Plain', tryHarder: true, tryRotate: true, tryInvert: true, binarizer, tryDenoise: denoise },
  );
  const seen = new Set<string>();
  const out: Barcode[] = [];
  for (const r of results) {
    if (!r.isValid || seen.has(r.format + r.text)) continue;
    seen.add(r.format + r.text);
    out.push({ format: r.format, text: r.text });
  }
  return out;
}

async function resized(image: DecodedImage, factor: number): Promise<DecodedImage> {
  const { data, info } = await toSharp(image)
    .resize({ width: Math.round(image.width * factor), kernel: 'cubic' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: image.channels };
}

async function rotated(image: DecodedImage, degrees: number): Promise<DecodedImage> {
  const background = image.channels === 1 ? { r: 255, g: 255, b: 255 } : '#ffffff';
  const { data, info } = await toSharp(image).rotate(degrees, { background }).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels === 1 ? 1 : 3 };
}

/** Largest side of the enlarged variant: zxing's time grows with pixels. */
const MAX_ENLARGED_SIDE = 2000;

export async function readBarcodes(input: Uint8Array | DecodedImage, options: ReadBarcodesOptions = {}): Promise<Barcode[]> {
  const image = input instanceof Uint8Array ? await decodeImage(input) : input;
  const passes: Pass[] = [
    { image: async () => image, binarizer: 'LocalAverage', denoise: false },
    { image: async () => image, binarizer: 'GlobalHistogram', denoise: true },
  ];
  const corners = options.documentCorners;
  if (corners) {
    const width = Math.round(Math.hypot(corners[1]![0] - corners[0]![0], corners[1]![1] - corners[0]![1]));
    passes.push({ image: () => warpDocument(image, corners, Math.max(16, width)), binarizer: 'LocalAverage', denoise: false });
  }
  const side = Math.max(image.width, image.height);
  if (side * 2 <= MAX_ENLARGED_SIDE) passes.push({ image: async () => resized(image, 2), binarizer: 'LocalAverage', denoise: false });
  for (const pass of passes) {
    const found = await readPass(await pass.image(), pass.binarizer, pass.denoise);
    if (found.length) return found;
  }
  // Straightened crops of the densest patches, then small turns of the whole image.
  for (const region of await barcodeRegions(image)) {
    for (const variant of [region, await resized(region, 2)]) {
      const found = await readPass(variant, 'LocalAverage', false);
      if (found.length) return found;
    }
  }
  for (const deg of [5, -5]) {
    const found = await readPass(await rotated(image, deg), 'LocalAverage', false);
    if (found.length) return found;
  }
  return [];
}
