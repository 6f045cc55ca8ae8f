import sharp from 'sharp';
import { degradeCard, type DegradedPhoto } from '../degrade.ts';
import type { Rng } from '../rng.ts';
import { opaqueRgba, type PresentedImage } from './content.ts';

/**
 * Presentation attack species "screen replay" (generated): a picture of a document shown on a
 * screen (a phone, a tablet or a monitor) and photographed by the phone of the journey. The
 * screen is drawn at its sub-pixel resolution (each pixel three vertical R, G, B stripes and a
 * dark line of black matrix), with the display's tone curve (raised black, gamma, a bluish white
 * point, saturation squeezed into a smaller gamut) and a black bezel around the picture; then the
 * usual phone photo (degradeCard: perspective, uneven light, a glare spot — a reflection on the
 * glass — blur, noise, JPEG). The camera's pixels integrate the stripes unevenly: the aliasing
 * gives the coloured moiré one sees on photos of screens. Every draw comes from the seeded rng.
 */
/** Light of a sub-pixel's colour seen in its neighbours' columns (colour filters are not perfect). */
const LEAK = 0.08;

export interface ScreenReplayOptions {
  /** Screen pixels across the picture shown (a phone shows about 1,000–1,400; a monitor zooms). */
  screenPixels?: [number, number];
  /** Photo width (degradeCard's outputWidth). */
  outputWidth?: number;
}

export async function screenReplay(content: PresentedImage, rng: Rng, options: ScreenReplayOptions = {}): Promise<DegradedPhoto> {
  const [minPx, maxPx] = options.screenPixels ?? [600, 1100];
  const sw = Math.round(rng.range(minPx, maxPx));
  const sh = Math.max(1, Math.round((sw * content.height) / content.width));
  // The picture resampled to the screen's pixel grid (what the display actually lights).
  const onScreen = await sharp(content.data, { raw: { width: content.width, height: content.height, channels: 3 } })
    .resize(sw, sh, { fit: 'fill' })
    .raw()
    .toBuffer();

  // Display: black level, gamma, white point, gamut (saturation toward grey).
  const black = rng.range(8, 26);
  const gamma = rng.range(0.85, 1.2);
  const white = [rng.range(0.88, 0.97), rng.range(0.93, 1), 1];
  const gamut = rng.range(0.7, 0.92);
  const tone = new Float32Array(256);
  for (let v = 0; v < 256; v++) tone[v] = black + (255 - black) * (v / 255) ** gamma;

  // Sub-pixel raster: 3 columns (R, G, B) by 3 rows (two lit, one of black matrix) per pixel.
  const bezel = Math.round(sw * rng.range(0.03, 0.09));
  const rw = (sw + 2 * bezel) * 3;
  const rh = (sh + 2 * bezel) * 3;
  const raster = Buffer.alloc(rw * rh * 3);
  const bezelGrey = rng.range(2, 8); // lifted by the exposure below
  raster.fill(Math.round(bezelGrey));
  const lit = rng.range(0.05, 0.2); // how much light leaks into the black matrix
  for (let y = 0; y < sh; y++) {
    for (let x = 0; x < sw; x++) {
      const s = (y * sw + x) * 3;
      const r0 = onScreen[s]!;
      const g0 = onScreen[s + 1]!;
      const b0 = onScreen[s + 2]!;
      const grey = (r0 + g0 + b0) / 3;
      const rgb = [r0, g0, b0].map((c, k) => tone[Math.round(grey + (c - grey) * gamut)]! * white[k]!);
      for (let dy = 0; dy < 3; dy++) {
        const row = ((y + bezel) * 3 + dy) * rw;
        const gain = dy === 2 ? lit : 1;
        for (let k = 0; k < 3; k++) {
          // Column k of the pixel carries only channel k (its neighbours' light bleeds a little).
          const o = (row + (x + bezel) * 3 + k) * 3;
          raster[o] = rgb[0]! * gain * (k === 0 ? 1 : LEAK);
          raster[o + 1] = rgb[1]! * gain * (k === 1 ? 1 : LEAK);
          raster[o + 2] = rgb[2]! * gain * (k === 2 ? 1 : LEAK);
        }
      }
    }
  }
  // The lens softens a little before the sensor samples (enough for moiré, not for a clean grid),
  // then the camera's exposure lifts the mean of a white pixel (lit stripe, dim stripes, dark
  // line) back near white; the brightest stripes may clip, as they do on photos of screens.
  const softened = await sharp(raster, { raw: { width: rw, height: rh, channels: 3 } }).blur(rng.range(0.6, 1.2)).raw().toBuffer();
  const whiteMean = 255 * ((1 + 2 * LEAK) / 3) * ((2 + lit) / 3);
  const exposed = await sharp(softened, { raw: { width: rw, height: rh, channels: 3 } }).linear(rng.range(0.85, 1) * (250 / whiteMean), 0).raw().toBuffer();
  return degradeCard(opaqueRgba({ data: exposed, width: rw, height: rh }), rng, { outputWidth: options.outputWidth ?? 1600, cardWidthFraction: [0.74, 0.9], maxGlare: 0.5 });
}
