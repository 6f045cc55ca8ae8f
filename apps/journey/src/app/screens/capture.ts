import { CameraError, analyseBlob, cameraAvailability, fileToJpeg, hintText, openCamera, stopCamera, toJpeg, watchQuality, type Facing } from '../camera.ts';
import { h, nextId, onDetached } from '../dom.ts';
import { t } from '../i18n.ts';
import type { MessageKey } from '../messages/en.ts';
import { errorLine, handoffOffer, type JourneyView } from '../view.ts';
import type { Region } from '../quality.ts';
import type { PieceKind } from '../types.ts';
import { watchDocument } from '../autocapture/document-watch.ts';
import { isGlare, type DocumentHint } from '../autocapture/document-verdict.ts';
import type { GlareBlob } from '@idv/engine/quality-measures';
import { loadFaceDetector, watchFace } from '../autocapture/face-watch.ts';
import type { Baseline, FaceHint, FaceTask } from '../autocapture/face-verdict.ts';

const isDocument = (kind: PieceKind) => kind.startsWith('document_');
/** How long the photo that took itself stays on screen before the journey moves on. */
const CAPTURED_PAUSE_MS = 900;

function instruction(j: JourneyView, kind: PieceKind): string {
  if (kind === 'document_front' && j.state.document.chosen?.type === 'passport') return t('instruction_passport');
  return t(`instruction_${kind}` as MessageKey);
}

export function faceIntro(j: JourneyView): void {
  j.show(
    {
      step: 'face',
      title: t('face_title'),
      body: [h('p', null, t('face_intro'))],
      actions: [
        h('button', { type: 'button', class: 'primary', onclick: () => captureScreen(j, 'selfie', () => j.next()) }, t('camera_start')),
        handoffOffer(j, { step: 'face', reason: null }),
      ],
    },
    () => faceIntro(j),
  );
}

/**
 * What the hints look at, as fractions of the frame: the whole guide for a document; for a face,
 * the middle of the oval (the face itself, not the hair, clothes or background around it).
 */
function regionOf(video: HTMLVideoElement, guide: HTMLElement): Region {
  const r = guideRegion(video, guide);
  return guide.classList.contains('guide-face') ? { x: r.x + 0.25 * r.w, y: r.y + 0.15 * r.h, w: 0.5 * r.w, h: 0.6 * r.h } : r;
}

/**
 * The guide's place in the camera's frame (fractions). The video fills its box with
 * `object-fit: cover`: the frame is scaled to cover the box and centred, so a tall phone frame
 * loses its top and bottom in the view, and the guide covers less of it than of the box.
 */
function guideRegion(video: HTMLVideoElement, guide: HTMLElement): Region {
  const v = video.getBoundingClientRect();
  const g = guide.getBoundingClientRect();
  if (!v.width || !v.height || !g.width || !g.height || !video.videoWidth) return { x: 0.1, y: 0.1, w: 0.8, h: 0.8 };
  const scale = Math.max(v.width / video.videoWidth, v.height / video.videoHeight);
  const shownW = video.videoWidth * scale;
  const shownH = video.videoHeight * scale;
  const left = v.left + (v.width - shownW) / 2;
  const top = v.top + (v.height - shownH) / 2;
  const clamp = (n: number) => Math.min(1, Math.max(0, n));
  // The preview of the front camera is mirrored: the guide (centred) is where it is either way.
  const x = clamp((g.left - left) / shownW);
  const y = clamp((g.top - top) / shownH);
  return { x, y, w: Math.min(1 - x, g.width / shownW), h: Math.min(1 - y, g.height / shownH) };
}

const documentHint = (hint: DocumentHint): string =>
  t(({ dark: 'hint_dark', edges: 'hint_document_edges', far: 'hint_far', glare: 'hint_glare', blurry: 'hint_blurry', steady: 'hint_steady', ready: 'hint_steady' } as const)[hint]);

function faceHint(hint: FaceHint, kind: PieceKind): string {
  if (hint === 'turn') return t(`instruction_${kind}` as MessageKey);
  const keys = {
    dark: 'hint_dark',
    no_face: 'hint_face_none',
    several: 'hint_face_several',
    centre: 'hint_face_centre',
    far: 'hint_face_far',
    close: 'hint_face_close',
    straight: 'hint_face_straight',
    steady: 'hint_steady',
    ready: 'hint_steady',
  } as const;
  return t(keys[hint]);
}

/**
 * The selfie's head pose, kept for the challenges that follow on this page: each turn is
 * measured from it, as the liveness check does. Unknown (a photo chosen by hand, a reload): the
 * challenges are measured from a frontal pose.
 */
let selfieBaseline: Baseline | null = null;

/**
 * One photo: the live camera with its guide and hints, then a preview to accept or retake (a file
 * input where the flow allows it). `done` runs once the photo is accepted. Where the handoff is
 * offered, a device without a usable camera moves to the handoff screen instead of an error.
 */
export function captureScreen(j: JourneyView, kind: PieceKind, done: () => void): void {
  const step = isDocument(kind) ? 'document' : 'face';
  const automatic = j.offersHandoff && !j.handoffDeclined;
  if (!automatic) return drawCapture(j, kind, done, null);
  void cameraAvailability().then((found) => (found === 'ok' ? drawCapture(j, kind, done, (reason) => j.handoff({ step, reason })) : j.handoff({ step, reason: found })));
}

function drawCapture(j: JourneyView, kind: PieceKind, done: () => void, toPhone: ((reason: CameraError['reason']) => void) | null): void {
  const facing: Facing = isDocument(kind) ? 'environment' : 'user';
  const step = isDocument(kind) ? 'document' : 'face';
  const allowFile = j.state.capture.allow_file_upload;
  const error = errorLine();
  const hint = h('p', { class: 'hint', 'aria-live': 'polite' });
  const video = h('video', { autoplay: true, muted: true, playsInline: true, 'aria-label': t('camera_video_label'), class: facing === 'user' ? 'mirror' : '' });
  const guide = h('div', { class: isDocument(kind) ? 'guide guide-document' : 'guide guide-face', 'aria-hidden': 'true' });
  const viewfinder = h('div', { class: 'viewfinder', 'data-looks': '0' }, video, guide);
  const take = h('button', { type: 'button', class: 'primary', disabled: true }, t('camera_take'));
  let stream: MediaStream | null = null;
  let stopWatch = () => {};
  const leave = () => {
    stopWatch();
    stopCamera(stream);
    stream = null;
  };

  const preview = (blob: Blob, region: Region) => {
    leave();
    const url = URL.createObjectURL(blob);
    const previewHint = h('p', { class: 'hint', 'aria-live': 'polite' });
    void analyseBlob(blob, region).then((hintValue) => (previewHint.textContent = hintText(hintValue)), () => {});
    j.show(
      {
        step,
        title: t(`piece_${kind}` as MessageKey),
        body: [h('img', { src: url, class: 'preview', alt: t('photo_preview', { piece: t(`piece_${kind}` as MessageKey) }) }), previewHint],
        actions: [
          h('button', {
            type: 'button',
            class: 'primary',
            onclick: () => {
              j.captures.set(kind, blob);
              j.uploads.add(kind, blob);
              done();
            },
          }, t('use_photo')),
          h('button', { type: 'button', class: 'secondary', onclick: () => { URL.revokeObjectURL(url); captureScreen(j, kind, done); } }, t('retake')),
        ],
      },
      () => preview(blob, region),
    );
  };

  take.onclick = async () => {
    if (!video.videoWidth) return;
    take.disabled = true;
    const region = regionOf(video, guide);
    try {
      preview(await toJpeg(video, video.videoWidth, video.videoHeight), region);
    } catch {
      take.disabled = false;
      error.textContent = t('error_generic');
    }
  };

  /**
   * The shutter fired by itself: the frame is kept, shown a moment with "Photo taken" (the
   * person sees what was taken), then accepted; every photo can be taken again at the check.
   */
  const autoCapture = async () => {
    if (!video.videoWidth || !video.isConnected) return;
    take.disabled = true;
    let blob: Blob;
    try {
      blob = await toJpeg(video, video.videoWidth, video.videoHeight);
    } catch {
      take.disabled = false;
      error.textContent = t('error_generic');
      return;
    }
    leave();
    const url = URL.createObjectURL(blob);
    const still = h('img', { src: url, class: `still${facing === 'user' ? ' mirror' : ''}`, alt: t('photo_preview', { piece: t(`piece_${kind}` as MessageKey) }) });
    viewfinder.replaceChildren(still, h('div', { class: 'guide-done', 'aria-hidden': 'true' }));
    viewfinder.dataset.state = 'captured';
    hint.textContent = t('hint_captured');
    take.hidden = true;
    if (fileChoice) fileChoice.hidden = true;
    window.setTimeout(() => {
      if (!still.isConnected) return;
      j.captures.set(kind, blob);
      j.uploads.add(kind, blob);
      done();
    }, CAPTURED_PAUSE_MS);
  };

  /** Counts the looks on the viewfinder (`data-looks`) and shows where the view stands. */
  const looked = (state: string, text: string, found: boolean) => {
    viewfinder.dataset.looks = String(Number(viewfinder.dataset.looks) + 1);
    viewfinder.dataset.state = state;
    guide.classList.toggle('found', found);
    if (hint.textContent !== text) hint.textContent = text;
  };

  const startWatching = () => {
    if (isDocument(kind)) {
      stopWatch = watchDocument(
        video,
        () => guideRegion(video, guide),
        ({ hint: value, quad, look }) => {
          // The measures of the look, for the tests and bench:journey (numbers only, nothing sent).
          if (look.sharpness !== undefined) viewfinder.dataset.sharpness = String(Math.round(look.sharpness));
          // The blob judged glare, else the largest: its share, halo and core.
          const blob = look.glare?.find((b) => isGlare(b)) ?? look.glare?.reduce<GlareBlob | null>((a, b) => (!a || b.share > a.share ? b : a), null);
          if (look.glare) viewfinder.dataset.glare = blob ? `${blob.share.toFixed(4)} ${Math.round(blob.haloLuminance)} ${blob.core.toFixed(3)}` : 'none';
          looked(value, documentHint(value), Boolean(quad) && (value === 'steady' || value === 'ready'));
        },
        () => void autoCapture(),
      );
      return;
    }
    const task = (kind === 'selfie' ? 'selfie' : kind.replace('liveness_', '')) as FaceTask;
    viewfinder.dataset.state = 'loading';
    hint.textContent = t('hint_face_loading');
    let stopped = false;
    stopWatch = () => {
      stopped = true;
    };
    loadFaceDetector().then(
      (model) => {
        if (stopped) return;
        stopWatch = watchFace(
          video,
          model,
          task,
          selfieBaseline,
          () => guideRegion(video, guide),
          ({ hint: value, judgement }) => {
            // The measured turn, for the tests and bench:journey (degrees; no image, nothing sent).
            if (judgement.pose) viewfinder.dataset.yaw = judgement.pose.yaw.toFixed(1);
            looked(value, faceHint(value, kind), value === 'steady' || value === 'ready');
          },
          (judgement) => {
            if (task === 'selfie' && judgement.pose) selfieBaseline = { yaw: judgement.pose.yaw, drop: judgement.pose.drop };
            void autoCapture();
          },
        );
      },
      () => {
        // No detector (an old browser, a lost connection): today's hints, and the button.
        if (stopped) return;
        viewfinder.dataset.state = 'manual';
        stopWatch = watchQuality(video, () => regionOf(video, guide), (value) => (hint.textContent = hintText(value)));
      },
    );
  };

  const fileId = nextId('file');
  const fileInput = h('input', { type: 'file', id: fileId, accept: 'image/*', class: 'visually-hidden' });
  fileInput.onchange = async () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    try {
      preview(await fileToJpeg(file), { x: 0.05, y: 0.05, w: 0.9, h: 0.9 });
    } catch {
      error.textContent = t('error_image_unreadable');
    }
  };
  const fileChoice = allowFile ? h('label', { for: fileId, class: 'button secondary' }, t('use_file'), fileInput) : null;

  j.show(
    {
      step,
      title: t(`piece_${kind}` as MessageKey),
      body: [h('p', null, instruction(j, kind)), viewfinder, hint, h('p', { class: 'note' }, t('auto_capture_note')), error],
      actions: [take, fileChoice, handoffOffer(j, { step, reason: null })],
    },
    () => captureScreen(j, kind, done),
  );

  onDetached(video, leave);

  openCamera(facing).then(
    (s) => {
      if (!video.isConnected) return stopCamera(s);
      stream = s;
      video.srcObject = s;
      video.onloadedmetadata = () => {
        take.disabled = false;
        startWatching();
      };
    },
    (err: unknown) => {
      const reason = err instanceof CameraError ? err.reason : 'unavailable';
      if (!video.isConnected) return;
      if (toPhone) return toPhone(reason);
      viewfinder.hidden = true;
      take.hidden = true;
      error.textContent = `${t(reason === 'denied' ? 'camera_denied' : 'camera_unavailable')}${allowFile ? '' : ` ${t('camera_required')}`}`;
      if (!allowFile) {
        error.after(h('div', { class: 'actions' }, h('button', { type: 'button', class: 'primary', onclick: () => captureScreen(j, kind, done) }, t('retry'))));
      }
    },
  );
}
