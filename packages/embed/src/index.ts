/**
 * Mounts the hosted journey in an integrator's page and runs the browser handshake (spec section
 * 6). Every message is checked twice: it must come from this frame's window (`event.source`) and
 * from the journey's origin (`event.origin`); everything the page sends goes to the journey
 * origin only. Messages carry the step the person is at, never a result or personal data: read
 * the case server-side (or wait for the case.decided webhook) for the outcome.
 */
import { PROTOCOL_VERSION, parseMessage, type InitMessage, type JourneyEvent } from './protocol.ts';

export {
  END_REASONS,
  JOURNEY_STEPS,
  PROTOCOL_VERSION,
  parseMessage,
  type EndReason,
  type InitMessage,
  type JourneyEvent,
  type JourneyEventType,
  type JourneyMessage,
  type JourneyStep,
} from './protocol.ts';

export interface MountOptions {
  /** Where the frame goes; its content is replaced. */
  container: HTMLElement;
  /** The session url returned by POST /v1/sessions ({journey_url}/#<token>). */
  url: string;
  /** Every event of the journey, typed. */
  onEvent?: (event: JourneyEvent) => void;
  /**
   * Asked when the link has expired: return the url of a new session for the same case (created
   * by your server with POST /v1/sessions); the frame moves to it and the journey resumes where
   * the person was. Without it, the expired screen stays.
   */
  renewUrl?: () => Promise<string>;
  /** Accessible name of the frame. */
  title?: string;
}

export interface MountedJourney {
  iframe: HTMLIFrameElement;
  /** Moves the frame to another session url (for example a new one after `ended: later`). */
  load(url: string): void;
  destroy(): void;
}

const TOKEN = /^#[A-Za-z0-9_-]{43}$/;

/** The frame address of a session url: same origin, path /embed, same fragment. */
export function frameUrl(sessionUrl: string): { src: string; origin: string } {
  const u = new URL(sessionUrl);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('the session url must be http(s)');
  if (!TOKEN.test(u.hash)) throw new Error('the session url must end with #<token>');
  return { src: `${u.origin}/embed${u.hash}`, origin: u.origin };
}

export function mountJourney(options: MountOptions): MountedJourney {
  let { origin, src } = frameUrl(options.url);
  const iframe = document.createElement('iframe');
  iframe.src = src;
  iframe.allow = 'camera';
  iframe.title = options.title ?? 'Identity verification';
  iframe.setAttribute('referrerpolicy', 'origin');
  iframe.style.width = '100%';
  iframe.style.border = '0';
  iframe.style.minHeight = '32rem';
  options.container.replaceChildren(iframe);
  let renewing = false;

  const load = (url: string) => {
    ({ origin, src } = frameUrl(url));
    iframe.src = src;
  };

  const onMessage = (event: MessageEvent) => {
    if (event.source !== iframe.contentWindow || event.origin !== origin) return;
    const parsed = parseMessage(event.data);
    if (!parsed) return;
    if (parsed.type === 'hello') {
      iframe.contentWindow?.postMessage({ type: 'service:init', version: PROTOCOL_VERSION } satisfies InitMessage, origin);
      return;
    }
    if (parsed.type === 'resize') iframe.style.height = `${parsed.height}px`;
    options.onEvent?.(parsed);
    if (parsed.type === 'ended' && parsed.reason === 'expired' && options.renewUrl && !renewing) {
      renewing = true;
      options
        .renewUrl()
        .then(load, () => {})
        .finally(() => (renewing = false));
    }
  };
  window.addEventListener('message', onMessage);
  return {
    iframe,
    load,
    destroy: () => {
      window.removeEventListener('message', onMessage);
      iframe.remove();
    },
  };
}
