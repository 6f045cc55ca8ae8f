import { h } from './dom.ts';
import { t } from './i18n.ts';
import { analyse, type Hint, type Region } from './quality.ts';

/** Longer side of the photos sent: enough to read a document, small enough for a slow connection. */
const MAX_SIDE = 1920;
const JPEG_QUALITY = 0.9;

export type Facing = 'environment' | 'user';

export class CameraError extends Error {
  constructor(readonly reason: 'denied' | 'unavailable') {
    super(reason);
  }
}

/** The stream in use: one camera at a time (phones cannot open two, and a new screen must not reuse the old one). */
let active: MediaStream | null = null;

export async function openCamera(facing: Facing): Promise<MediaStream> {
  if (!navigator.mediaDevices?.getUserMedia) throw new CameraError('unavailable');
  stopCamera(active);
  try {
    active = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: facing }, width: { ideal: 1920 }, height: { ideal: 1080 } },
    });
    return active;
  } catch (err) {
    const name = (err as DOMException).name;
    throw new CameraError(name === 'NotAllowedError' || name === 'SecurityError' ? 'denied' : 'unavailable');
  }
}

/**
 * Whether this device can give a live camera, asked before opening it: no camera API (an old or
 * locked-down browser), the camera refused for this page, or no video device at all. `ok` does not
 * promise the camera opens (openCamera may still fail); it only spares a desktop without a camera
 * the wait and the error before it is offered the phone.
 */
export async function cameraAvailability(): Promise<'ok' | CameraError['reason']> {
  const media = navigator.mediaDevices;
  if (!media?.getUserMedia) return 'unavailable';
  try {
    // Not every browser can ask about the camera (the name is refused): then we learn it when opening.
    if ((await navigator.permissions.query({ name: 'camera' as PermissionName })).state === 'denied') return 'denied';
  } catch {
    // unknown permission name
  }
  try {
    // Before the camera is allowed, devices are listed without their labels, but with their kind.
    if (!(await media.enumerateDevices()).some((d) => d.kind === 'videoinput')) return 'unavailable';
  } catch {
    // cannot tell: try to open it
  }
  return 'ok';
}

export function stopCamera(stream: MediaStream | null): void {
  for (const track of stream?.getTracks() ?? []) track.stop();
  if (stream === active) active = null;
}

/** Draws a source to a JPEG no larger than MAX_SIDE on its longer side. */
export function toJpeg(source: CanvasImageSource, width: number, height: number): Promise<Blob> {
  const scale = Math.min(1, MAX_SIDE / Math.max(width, height));
  const canvas = h('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  canvas.getContext('2d')!.drawImage(source, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('encoding failed'))), 'image/jpeg', JPEG_QUALITY));
}

/** A photo chosen in a file input, decoded by the browser (HEIC included where it can) and re-encoded as JPEG. */
export async function fileToJpeg(file: File): Promise<Blob> {
  const bitmap = await createImageBitmap(file);
  try {
    return await toJpeg(bitmap, bitmap.width, bitmap.height);
  } finally {
    bitmap.close();
  }
}

export const hintText = (hint: Hint) =>
  ({ dark: t('hint_dark'), bright: t('hint_bright'), blurry: t('hint_blurry'), far: t('hint_far'), ok: t('hint_ok') })[hint];

/**
 * Hints on the live view, a few times a second, while the video plays. The guide's place is read
 * at each look (the layout settles after the first frames). Returns a stop function.
 */
export function watchQuality(video: HTMLVideoElement, region: () => Region, onHint: (hint: Hint) => void): () => void {
  const canvas = h('canvas');
  let stopped = false;
  let last: Hint | null = null;
  const tick = () => {
    if (stopped) return;
    if (video.readyState >= 2 && video.videoWidth > 0) {
      const { hint } = analyse(video, video.videoWidth, video.videoHeight, region(), canvas);
      if (hint !== last) {
        last = hint;
        onHint(hint);
      }
    }
    window.setTimeout(tick, 300);
  };
  tick();
  return () => {
    stopped = true;
  };
}

export async function analyseBlob(blob: Blob, region: Region): Promise<Hint> {
  const bitmap = await createImageBitmap(blob);
  try {
    return analyse(bitmap, bitmap.width, bitmap.height, region, h('canvas')).hint;
  } finally {
    bitmap.close();
  }
}
