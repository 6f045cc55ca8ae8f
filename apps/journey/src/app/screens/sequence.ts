import { ApiFailure } from '../api.ts';
import { CameraError, openCamera, stopCamera } from '../camera.ts';
import { h, onDetached } from '../dom.ts';
import { t } from '../i18n.ts';
import type { MessageKey } from '../messages/en.ts';
import type { FaceChallenge, FaceSequence } from '../types.ts';
import { errorLine, handoffOffer, type JourneyView } from '../view.ts';

/**
 * The live sequence (docs/liveness.md#the-live-sequence): the service draws the challenge when the
 * person starts (the movements' order, how long to hold each, a nonce valid a minute); the screen
 * then films it, a small frame every tenth of a second while it says which movement to make, and
 * sends the frames at once in one upload bound to the challenge. A challenge is answered once: a
 * retry asks for a new one.
 */

/** Looking straight first: the frames the service measures every movement from. */
const STRAIGHT_MS = 1000;
/** Time to make a movement, before holding it. */
const MOVE_MS = 1200;
/** Back to straight between two movements, and at the end. */
const RETURN_MS = 600;
/** Small frames, for a phone on 3G: about 8–12 kB each at 320 pixels. */
const JPEG_QUALITY = 0.6;
/** How long "Done" stays on screen before the journey moves on. */
const DONE_PAUSE_MS = 900;

interface Cue {
  /** Until this many ms from the start. */
  until: number;
  text: MessageKey;
  /** The movement's number (1…), or 0 while looking straight. */
  movement: number;
}

/** The script of a challenge: straight, then each movement held, with a return between; fitted into the capture's limit. */
export function cues(c: Pick<FaceChallenge, 'movements' | 'hold_ms' | 'max_duration_ms'>): Cue[] {
  const n = c.movements.length;
  const room = (c.max_duration_ms - 500 - STRAIGHT_MS) / Math.max(1, n) - RETURN_MS;
  const each = Math.min(MOVE_MS + c.hold_ms, room);
  const out: Cue[] = [{ until: STRAIGHT_MS, text: 'sequence_straight', movement: 0 }];
  let at = STRAIGHT_MS;
  c.movements.forEach((m, i) => {
    at += each;
    out.push({ until: at, text: `instruction_liveness_${m}` as MessageKey, movement: i + 1 });
    at += RETURN_MS;
    out.push({ until: at, text: 'sequence_straight', movement: i + 1 });
  });
  return out;
}

export function sequenceScreen(j: JourneyView, done: () => void): void {
  const error = errorLine();
  const instruction = h('p', { class: 'sequence-cue', 'aria-live': 'assertive' }, t('sequence_intro'));
  const stepLine = h('p', { class: 'hint', 'aria-live': 'polite' });
  const bar = h('progress', { max: 1, value: 0, 'aria-label': t('sequence_progress_label'), hidden: true });
  const video = h('video', { autoplay: true, muted: true, playsInline: true, 'aria-label': t('camera_video_label'), class: 'mirror' });
  const guide = h('div', { class: 'guide guide-face', 'aria-hidden': 'true' });
  const viewfinder = h('div', { class: 'viewfinder', 'data-state': 'loading' }, video, guide);
  const start = h('button', { type: 'button', class: 'primary', disabled: true }, t('sequence_start'));
  let stream: MediaStream | null = null;
  const leave = () => {
    stopCamera(stream);
    stream = null;
  };

  const run = async () => {
    if (!stream || !video.videoWidth) return;
    start.hidden = true;
    error.textContent = '';
    let challenge: FaceChallenge;
    try {
      challenge = await j.api.faceChallenge();
    } catch (err) {
      error.textContent = j.failure(err);
      start.hidden = false;
      return;
    }
    viewfinder.dataset.state = 'filming';
    instruction.classList.add('live');
    bar.hidden = false;
    const script = cues(challenge);
    const frames = await film(video, challenge, script, (cue, share) => {
      const text = t(cue.text);
      if (instruction.textContent !== text) instruction.textContent = text;
      viewfinder.dataset.movement = String(cue.movement);
      stepLine.textContent = cue.movement ? t('sequence_step', { n: cue.movement, total: challenge.movements.length }) : '';
      bar.value = share;
    });
    viewfinder.dataset.state = 'sending';
    instruction.textContent = t('sequence_sending');
    stepLine.textContent = '';
    bar.value = 0;
    const sequence: FaceSequence = { challenge_id: challenge.id, nonce: challenge.nonce, frames: frames.map((f) => ({ t: f.t, image: f.image })), camera: await cameraReport(stream) };
    try {
      j.state = await j.api.uploadSequence(sequence, (sent, total) => (bar.value = total ? sent / total : 0));
    } catch (err) {
      viewfinder.dataset.state = 'ready';
      instruction.classList.remove('live');
      bar.hidden = true;
      instruction.textContent = t('sequence_intro');
      const again = err instanceof ApiFailure && (err.code === 'face_challenge_expired' || err.code === 'face_challenge_invalid' || err.code === 'network');
      error.textContent = again ? t('sequence_again') : j.failure(err);
      start.textContent = t('retry');
      start.hidden = false;
      return;
    }
    leave();
    // A frame of the middle of the capture: shown in place of the stopped camera, and as the check screen's thumbnail.
    const middle = frames[frames.length >> 1];
    if (middle) {
      j.captures.set('liveness_frame', middle.blob);
      viewfinder.replaceChildren(h('img', { src: URL.createObjectURL(middle.blob), class: 'still mirror', alt: t('sequence_done') }));
    }
    viewfinder.dataset.state = 'done';
    viewfinder.append(h('div', { class: 'guide-done', 'aria-hidden': 'true' }));
    instruction.textContent = t('sequence_done');
    bar.value = 1;
    window.setTimeout(() => {
      if (viewfinder.isConnected) done();
    }, DONE_PAUSE_MS);
  };
  start.onclick = () => void run();

  j.show(
    {
      step: 'face',
      title: t('sequence_title'),
      body: [instruction, viewfinder, stepLine, bar, error],
      actions: [start, handoffOffer(j, { step: 'face', reason: null })],
    },
    () => sequenceScreen(j, done),
  );

  onDetached(video, leave);

  openCamera('user').then(
    (s) => {
      if (!video.isConnected) return stopCamera(s);
      stream = s;
      video.srcObject = s;
      video.onloadedmetadata = () => {
        viewfinder.dataset.state = 'ready';
        start.disabled = false;
      };
    },
    (err: unknown) => {
      if (!video.isConnected) return;
      const reason = err instanceof CameraError ? err.reason : 'unavailable';
      viewfinder.hidden = true;
      start.hidden = true;
      error.textContent = `${t(reason === 'denied' ? 'camera_denied' : 'camera_unavailable')} ${t('camera_required')}`;
      error.after(h('div', { class: 'actions' }, h('button', { type: 'button', class: 'primary', onclick: () => sequenceScreen(j, done) }, t('retry'))));
    },
  );
}

interface Frame {
  t: number;
  image: string;
  blob: Blob;
}

/**
 * Films the script: a frame every 1/frame_rate s, the camera's own (unmirrored) picture scaled to
 * max_side, timed by the page's clock; stops at the script's end or the challenge's limits.
 */
async function film(video: HTMLVideoElement, c: FaceChallenge, script: Cue[], onCue: (cue: Cue, share: number) => void): Promise<Frame[]> {
  const total = Math.min(script[script.length - 1]!.until, c.max_duration_ms - 200);
  const scale = Math.min(1, c.max_side / Math.max(video.videoWidth, video.videoHeight));
  const canvas = h('canvas');
  canvas.width = Math.round(video.videoWidth * scale);
  canvas.height = Math.round(video.videoHeight * scale);
  const context = canvas.getContext('2d')!;
  const pending: Promise<Frame>[] = [];
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const at = performance.now() - started;
      if (at > total || pending.length >= c.max_frames) return resolve();
      const cue = script.find((s) => at < s.until) ?? script[script.length - 1]!;
      onCue(cue, at / total);
      context.drawImage(video, 0, 0, canvas.width, canvas.height);
      pending.push(encode(canvas, Math.round(at * 10) / 10));
      window.setTimeout(tick, Math.max(0, started + pending.length * (1000 / c.frame_rate) - performance.now()));
    };
    tick();
  });
  return Promise.all(pending);
}

function encode(canvas: HTMLCanvasElement, at: number): Promise<Frame> {
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) => {
        if (!blob) return reject(new Error('encoding failed'));
        const reader = new FileReader();
        reader.onload = () => resolve({ t: at, blob, image: String(reader.result).slice(String(reader.result).indexOf(',') + 1) });
        reader.onerror = () => reject(new Error('encoding failed'));
        reader.readAsDataURL(blob);
      },
      'image/jpeg',
      JPEG_QUALITY,
    ),
  );
}

/** What the browser says about its camera: the service judges it with the frames' timing (never alone). */
async function cameraReport(stream: MediaStream): Promise<FaceSequence['camera']> {
  const track = stream.getVideoTracks()[0];
  const out: FaceSequence['camera'] = {};
  if (!track) return out;
  if (track.label) out.label = track.label.slice(0, 200);
  const s = track.getSettings();
  if (s.width) out.width = Math.round(s.width);
  if (s.height) out.height = Math.round(s.height);
  if (s.frameRate) out.frame_rate = Math.round(s.frameRate * 100) / 100;
  if (s.facingMode) out.facing_mode = String(s.facingMode).slice(0, 32);
  try {
    out.video_inputs = Math.min(64, (await navigator.mediaDevices.enumerateDevices()).filter((d) => d.kind === 'videoinput').length);
  } catch {
    // not told
  }
  return out;
}
