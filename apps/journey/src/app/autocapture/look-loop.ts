/** Pause between two looks at the live view: about seven looks a second when a look is quick. */
const LOOK_INTERVAL_MS = 120;

/**
 * Runs `look` on the live view again and again, one at a time (a slow phone simply looks less
 * often), while the video has a frame; stops when `look` answers false, throws, or the returned
 * function is called.
 */
export function lookLoop(video: HTMLVideoElement, look: () => boolean | Promise<boolean>): () => void {
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
    let again = true;
    if (video.readyState >= 2 && video.videoWidth > 0) {
      try {
        again = await look();
      } catch {
        again = false;
      }
    }
    if (again && !stopped) window.setTimeout(() => void tick(), LOOK_INTERVAL_MS);
  };
  void tick();
  return () => {
    stopped = true;
  };
}
