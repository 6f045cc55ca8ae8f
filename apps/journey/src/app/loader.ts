import { Api, ApiFailure } from './api.ts';
import { loadMessages, pickLocale } from './i18n.ts';
import { showEnded } from './journey.ts';

/**
 * `/embed#<token>`, the frame address of the spec. This first document knows no client, so it
 * asks the service which client's frame the token belongs to and moves to that frame's own
 * address, served with `frame-ancestors` from that client's origins: the browser itself then
 * refuses any other page. Where the browser tells the parent's origin (Chrome, Safari) and it is
 * not allowed, the refusal is shown here at once; an expired link shows that it has expired. It
 * posts nothing to the parent.
 */
async function load(): Promise<void> {
  const token = location.hash.slice(1);
  const apiBase = document.querySelector<HTMLMetaElement>('meta[name="idv-api"]')!.content;
  const root = document.getElementById('app')!;
  const refuse = async (reason: 'refused' | 'invalid_link' | 'expired') => {
    await loadMessages(pickLocale(navigator.language));
    showEnded(root, reason);
  };
  if (window.parent === window) {
    location.replace(`/#${token}`);
    return;
  }
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return refuse('invalid_link');
  let frame;
  try {
    frame = await new Api(apiBase, token).frame();
  } catch (err) {
    // An expired link learns nothing of its client, not even which pages may frame it: it says it
    // has expired, here only (no page is verified to be told).
    return refuse(err instanceof ApiFailure && err.code === 'session_expired' ? 'expired' : 'invalid_link');
  }
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  if (ancestors && ancestors.length > 0 && !frame.origins.includes(ancestors[0])) return refuse('refused');
  location.replace(`${frame.frame_path}#${token}`);
}

void load();
