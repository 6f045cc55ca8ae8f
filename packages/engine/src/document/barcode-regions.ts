import { loadOpenCv } from '../opencv.ts';
import { toGrey, type DecodedImage } from './decode.ts';
import { orderCorners, warpDocument, type Point } from './locate.ts';

/**
 * Where a barcode probably is, for the reader's second chance: zxing reads PDF417 rows badly
 * once they are tilted a few degrees. Barcodes are dense patches of strong gradients; closing
 * the gradient map joins a symbol into one blob whose rotated rectangle gives both the crop and
 * the tilt. Each region comes back straightened (rows horizontal) with a quiet margin.
 */
const WORK_SIDE = 1000;
const MIN_REGION_SHARE = 0.005;

export async function barcodeRegions(image: DecodedImage, max = 3): Promise<DecodedImage[]> {
  const { cv } = await loadOpenCv();
  const grey = toGrey(image);
  const scale = Math.min(1, WORK_SIDE / Math.max(grey.width, grey.height));
  const w = Math.max(1, Math.round(grey.width * scale));
  const h = Math.max(1, Math.round(grey.height * scale));
  const mats: { delete(): void }[] = [];
  const mat = <T extends { delete(): void }>(m: T): T => (mats.push(m), m);
  const regions: { corners: Point[]; area: number }[] = [];
  try {
    const src = mat(cv.matFromArray(grey.height, grey.width, cv.CV_8UC1, grey.data));
    const small = mat(new cv.Mat());
    cv.resize(src, small, new cv.Size(w, h), 0, 0, cv.INTER_AREA);
    const gx = mat(new cv.Mat());
    const gy = mat(new cv.Mat());
    cv.Sobel(small, gx, cv.CV_16S, 1, 0, 3);
    cv.Sobel(small, gy, cv.CV_16S, 0, 1, 3);
    const ax = mat(new cv.Mat());
    const ay = mat(new cv.Mat());
    cv.convertScaleAbs(gx, ax);
    cv.convertScaleAbs(gy, ay);
    const grad = mat(new cv.Mat());
    cv.addWeighted(ax, 0.5, ay, 0.5, 0, grad);
    cv.blur(grad, grad, new cv.Size(7, 7));
    const mask = mat(new cv.Mat());
    cv.threshold(grad, mask, 0, 255, cv.THRESH_BINARY + cv.THRESH_OTSU);
    const close = mat(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(15, 15)));
    cv.morphologyEx(mask, mask, cv.MORPH_CLOSE, close);
    const small3 = mat(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(5, 5)));
    cv.morphologyEx(mask, mask, cv.MORPH_OPEN, small3);
    const contours = mat(new cv.MatVector());
    const hierarchy = mat(new cv.Mat());
    cv.findContours(mask, contours, hierarchy, cv.RETR_EXTERNAL, cv.CHAIN_APPROX_SIMPLE);
    for (let i = 0; i < contours.size(); i++) {
      const c = contours.get(i);
      const rect = cv.minAreaRect(c);
      c.delete();
      const area = rect.size.width * rect.size.height;
      if (area < MIN_REGION_SHARE * w * h) continue;
      // A margin of a tenth of the short side keeps the quiet zone zxing needs.
      const pad = 0.1 * Math.min(rect.size.width, rect.size.height);
      const grown = { center: rect.center, size: { width: rect.size.width + 2 * pad, height: rect.size.height + 2 * pad }, angle: rect.angle };
      const pts = (cv.RotatedRect.points(grown) as { x: number; y: number }[]).map((p) => [p.x / scale, p.y / scale] as Point);
      regions.push({ corners: uprightLong(orderCorners(pts)), area });
    }
  } finally {
    for (const m of mats) m.delete();
  }
  regions.sort((a, b) => b.area - a.area);
  const out: DecodedImage[] = [];
  for (const r of regions.slice(0, max)) {
    const [tl, tr] = r.corners as [Point, Point];
    const width = Math.max(16, Math.round(Math.hypot(tr[0] - tl[0], tr[1] - tl[1])));
    out.push(await warpDocument(image, r.corners, width));
  }
  return out;
}

/** Corners reordered so that the first side is the long one (a PDF417's rows run along it). */
function uprightLong(c: Point[]): Point[] {
  const d = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  return d(c[0]!, c[1]!) >= d(c[1]!, c[2]!) ? c : [c[3]!, c[0]!, c[1]!, c[2]!];
}
