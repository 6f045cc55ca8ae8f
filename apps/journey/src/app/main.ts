import { Api, ApiFailure, openHandoff } from './api.ts';
import { applyAppearance } from './appearance.ts';
import { loadMessages, pickLocale, t } from './i18n.ts';
import { Journey, showEnded, showMessage } from './journey.ts';
import { handshake, noParent, reportHeight, type Parent } from './parent.ts';
import type { JourneyFrame, JourneyState } from './types.ts';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** The short link of a handoff to this phone: `/p/<code>` (the service normalises what was typed). */
const HANDOFF_LINK = /^\/p\/([0-9A-Za-z-]{1,32})$/;

/** A screen that failed to load: the message and a button that loads the page again. */
function showRetry(root: HTMLElement, code: string): void {
  showMessage(root, 'app_title', code === 'network' ? 'error_network' : 'error_generic');
  const retry = document.createElement('button');
  retry.type = 'button';
  retry.className = 'primary';
  retry.textContent = t('retry');
  retry.onclick = () => location.reload();
  root.append(retry);
}

/**
 * A phone opening a handoff code: the service spends the code and answers the phone's own journey
 * link; the address becomes that link (a reload resumes it, and the spent code leaves the address
 * bar). Null when the code does not open (its screen is then shown).
 */
async function openHandoffLink(root: HTMLElement, apiBase: string, code: string): Promise<string | null> {
  try {
    const token = new URL((await openHandoff(apiBase, code)).url).hash.slice(1);
    history.replaceState(null, '', `/#${token}`);
    return token;
  } catch (err) {
    await loadMessages(pickLocale(navigator.language));
    const failed = err instanceof ApiFailure ? err.code : 'unknown';
    if (failed === 'handoff_code_invalid') showMessage(root, 'handoff_code_invalid_title', 'handoff_code_invalid_body');
    else if (failed === 'handoff_code_expired' || failed === 'journey_closed') showMessage(root, 'handoff_code_expired_title', 'handoff_code_expired_body');
    else showRetry(root, failed);
    return null;
  }
}

/**
 * Starts the journey: the token is the fragment of the link (never sent to a server by the
 * browser), the service says where the person stands, and the screen for that is drawn. Framed
 * (`data-mode="embed"`), nothing is shown until the parent page has answered the handshake from
 * an allowed origin.
 */
async function start(): Promise<void> {
  const root = document.getElementById('app')!;
  const embed = document.documentElement.dataset.mode === 'embed';
  const apiBase = document.querySelector<HTMLMetaElement>('meta[name="idv-api"]')!.content;
  let token = location.hash.slice(1);
  const fallbackLocale = pickLocale(navigator.language);
  const handoff = embed ? null : HANDOFF_LINK.exec(location.pathname);
  if (handoff) {
    const opened = await openHandoffLink(root, apiBase, handoff[1]);
    if (!opened) return;
    token = opened;
  }

  if (embed && window.parent === window) {
    // The framed journey opened on its own: show the normal journey instead.
    location.replace(`/#${token}`);
    return;
  }
  if (!TOKEN.test(token)) {
    await loadMessages(fallbackLocale);
    return showEnded(root, 'invalid_link');
  }
  const api = new Api(apiBase, token);

  let parent: Parent = noParent;
  if (embed) {
    document.body.hidden = true;
    let frame: JourneyFrame | null = null;
    let expired = false;
    try {
      frame = await api.frame();
    } catch (err) {
      expired = err instanceof ApiFailure && err.code === 'session_expired';
    }
    const verified = frame && frame.frame_path === location.pathname ? await handshake(frame.origins) : null;
    document.body.hidden = false;
    if (!verified) {
      // An expired link learns nothing of its client, so no page is verified to be told: it says so here only.
      await loadMessages(fallbackLocale);
      return showEnded(root, expired ? 'expired' : 'refused');
    }
    parent = verified;
    reportHeight(parent);
  }

  // Reading the journey opens it (the case moves to collecting): framed, only once the page is
  // verified, so that a refused embedding changes nothing.
  const result = await api.state().then(
    (state) => ({ state }) as const,
    (error: unknown) => ({ error }) as const,
  );
  if ('error' in result) {
    await loadMessages(fallbackLocale);
    const code = result.error instanceof ApiFailure ? result.error.code : 'unknown';
    if (code === 'session_expired') {
      showEnded(root, 'expired');
      parent.post({ type: 'service:ready' });
      return parent.post({ type: 'service:ended', reason: 'expired' });
    }
    if (code === 'session_token_invalid' || code === 'session_token_missing') {
      showEnded(root, 'invalid_link');
      parent.post({ type: 'service:ready' });
      return parent.post({ type: 'service:ended', reason: 'invalid_link' });
    }
    return showRetry(root, code);
  }
  const state: JourneyState = result.state;
  await loadMessages(pickLocale(state.locale));
  applyAppearance(state.appearance);
  const journey = new Journey(api, state, parent, root);
  parent.post({ type: 'service:ready' });
  if (handoff) journey.phoneIntro();
  else journey.next();
  journey.prefetch();
}

// A new link opened in the same tab differs only by its fragment: start again with its token.
window.addEventListener('hashchange', () => location.reload());
void start();
