import { loadOpenCv } from '../opencv.ts';
import type { DecodedImage } from './decode.ts';

/**
 * Local (adaptive Gaussian) thresholding of a grey image: each pixel against its 31-pixel
 * neighbourhood, so print stays black and the tinted, patterned backgrounds of identity documents
 * turn white. Tesseract's own global threshold keeps the patterns and misreads around them.
 */
export async function localThreshold(grey: DecodedImage): Promise<DecodedImage> {
  if (grey.channels !== 1) throw new Error('localThreshold needs a grey image');
  const { cv } = await loadOpenCv();
  const src = cv.matFromArray(grey.height, grey.width, cv.CV_8UC1, grey.data);
  const out = new cv.Mat();
  try {
    cv.adaptiveThreshold(src, out, 255, cv.ADAPTIVE_THRESH_GAUSSIAN_C, cv.THRESH_BINARY, 31, 15);
    return { data: Buffer.from(out.data), width: grey.width, height: grey.height, channels: 1 };
  } finally {
    src.delete();
    out.delete();
  }
}
