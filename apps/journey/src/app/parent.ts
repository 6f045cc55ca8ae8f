import { PROTOCOL_VERSION, type InitMessage, type JourneyMessage } from '@idv/embed/protocol';

/** Where the journey reports its progress: the verified parent page, or nowhere (not framed). */
export interface Parent {
  post(message: JourneyMessage): void;
}

export const noParent: Parent = { post: () => {} };

const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * The handshake of the framed journey: `service:hello` to each allowed origin (never `*`); nothing
 * shows until a `service:init` with `version: 1` comes from the parent window from an allowed
 * origin, and every later message goes to that origin only. Null when no valid answer comes.
 */
export function handshake(allowed: readonly string[]): Promise<Parent | null> {
  const parentWindow = window.parent;
  if (parentWindow === window || allowed.length === 0) return Promise.resolve(null);
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  let targets = [...allowed];
  if (ancestors && ancestors.length > 0) {
    const direct = ancestors[0];
    if (!allowed.includes(direct)) return Promise.resolve(null);
    targets = [direct];
  }
  return new Promise((resolve) => {
    const timer = window.setTimeout(() => finish(null), HANDSHAKE_TIMEOUT_MS);
    function finish(parent: Parent | null) {
      window.clearTimeout(timer);
      window.removeEventListener('message', onMessage);
      resolve(parent);
    }
    function onMessage(event: MessageEvent) {
      if (event.source !== parentWindow || !allowed.includes(event.origin)) return;
      const data = event.data as Partial<InitMessage> | null;
      if (!data || data.type !== 'service:init' || data.version !== PROTOCOL_VERSION) return;
      const origin = event.origin;
      finish({ post: (message) => parentWindow.postMessage(message, origin) });
    }
    window.addEventListener('message', onMessage);
    for (const origin of targets) {
      try {
        parentWindow.postMessage({ type: 'service:hello', version: PROTOCOL_VERSION } satisfies JourneyMessage, origin);
      } catch {
        // an origin the browser cannot parse: skip it
      }
    }
  });
}

/** Reports the page height to the parent whenever it changes (the integrator sizes the frame). */
export function reportHeight(parent: Parent): void {
  let last = 0;
  let queued = false;
  const send = () => {
    queued = false;
    const height = Math.ceil(document.documentElement.scrollHeight);
    if (height !== last) {
      last = height;
      parent.post({ type: 'service:resize', height });
    }
  };
  new ResizeObserver(() => {
    if (!queued) {
      queued = true;
      requestAnimationFrame(send);
    }
  }).observe(document.body);
  send();
}
