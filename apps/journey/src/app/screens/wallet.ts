import { ApiFailure } from '../api.ts';
import { h } from '../dom.ts';
import { t } from '../i18n.ts';
import type { MessageKey } from '../messages/en.ts';
import { qrCode } from '../qr.ts';
import type { WalletRefusal, WalletRequest, WalletRequestCreated } from '../types.ts';
import { errorLine, type JourneyView } from '../view.ts';

/**
 * The digital identity wallet (docs/journey.md#the-digital-identity-wallet): the person shares
 * their identity from a wallet instead of photographing a document. On a browser with the
 * Digital Credentials API the page asks the browser, which opens the wallet (on this device, or a
 * phone it pairs with itself) and hands back the wallet's encrypted answer, posted here to the
 * service. Otherwise the request goes by reference to a wallet on another device: a QR code (and,
 * on a phone, a link that opens the wallet app), the page following the request as the handoff
 * page follows the phone. This module is a chunk of its own, loaded only when the flow offers the
 * wallet; it shares the QR code chunk with the handoff screen.
 */

/** How often the page asks where the request stands: a person takes seconds to confirm in the wallet. */
const POLL_MS = 2000;

/** What the person is told for each refusal: what happened, and what to do about it. */
const REFUSALS: Record<WalletRefusal, MessageKey> = {
  wallet_issuer_untrusted: 'wallet_refused_issuer_untrusted',
  wallet_credential_expired: 'wallet_refused_credential_expired',
  wallet_credential_revoked: 'wallet_refused_credential_revoked',
  wallet_device_binding_invalid: 'wallet_refused_device_binding_invalid',
  wallet_presentation_invalid: 'wallet_refused_presentation_invalid',
  wallet_claims_not_requested: 'wallet_refused_claims_not_requested',
  wallet_status_unavailable: 'wallet_refused_status_unavailable',
};

/** The protocol of the requests the service builds for the browser (docs/wallet.md). */
const PROTOCOL = 'openid4vp-v1-signed';

/** The browser can ask a wallet itself (W3C Digital Credentials API), with the protocol the service speaks. */
function hasDigitalCredentials(): boolean {
  const api = (window as unknown as { DigitalCredential?: { userAgentAllowsProtocol?: (protocol: string) => boolean } }).DigitalCredential;
  if (!api || typeof navigator.credentials?.get !== 'function') return false;
  return typeof api.userAgentAllowsProtocol === 'function' ? api.userAgentAllowsProtocol(PROTOCOL) : true;
}

/** A phone (its pointer is a finger): the wallet is likely on this very device. */
const onPhone = () => window.matchMedia('(pointer: coarse)').matches;

/**
 * The wallet step's first screen: what a wallet is for here, and the ways to use it. On a phone
 * whose browser has the API, the browser first (the wallet is on the phone); on a computer, the
 * QR code first (any wallet on a phone reads it), the browser's own way second.
 */
export function walletScreen(j: JourneyView): void {
  const dc = hasDigitalCredentials();
  const phone = onPhone();
  const browserFirst = dc && phone;
  const viaBrowser = h('button', { type: 'button', class: browserFirst ? 'primary' : 'secondary', onclick: () => sameDevice(j) }, t(phone ? 'wallet_open' : 'wallet_browser'));
  const viaCode = h(
    'button',
    { type: 'button', class: browserFirst ? 'secondary' : 'primary', onclick: () => crossDevice(j) },
    t(browserFirst ? 'wallet_other_device' : 'wallet_continue'),
  );
  const sandbox = j.state.wallet?.sandbox_wallet === true;
  stage(
    j,
    [h('p', null, t('wallet_intro')), h('p', null, t('wallet_consent')), sandbox ? h('p', { class: 'note sandbox-note' }, t('wallet_sandbox_note')) : null],
    [
      ...(dc ? (browserFirst ? [viaBrowser, viaCode] : [viaCode, viaBrowser]) : [viaCode]),
      sandbox ? h('button', { type: 'button', class: 'secondary sandbox-wallet', onclick: () => sandboxWallet(j) }, t('wallet_sandbox_present')) : null,
      documentInstead(j),
    ],
    () => walletScreen(j),
  );
}

/**
 * The sandbox's "test" button (the sandbox only: the service says so in the journey state): a
 * request as for a wallet on another device, answered by the service's own test wallet through
 * the same verification as a real wallet's answer; the page then follows it like any other.
 */
function sandboxWallet(j: JourneyView): void {
  const status = h('p', { class: 'hint', 'aria-live': 'polite' }, t('wallet_checking'));
  stage(j, [status, errorLine()], [], () => walletScreen(j));
  void (async () => {
    let answer: WalletRequest;
    try {
      answer = await j.api.sandboxWallet((await j.api.createWalletRequest('cross_device')).id);
    } catch (err) {
      return failed(j, err);
    }
    if (status.isConnected && !settled(j, answer)) follow(j, answer.id, status, () => undefined);
  })();
}

/** "Use my identity document instead", where the flow allows it: the document step then applies. */
function documentInstead(j: JourneyView): HTMLButtonElement | null {
  if (!j.state.wallet?.document_fallback) return null;
  return h(
    'button',
    {
      type: 'button',
      class: 'link',
      onclick: () => {
        j.walletDeclined = true;
        j.next();
      },
    },
    t('wallet_use_document'),
  );
}

/** A screen of the wallet step; three ways on or more are stacked on a wide screen too (side by side they would be squeezed). */
function stage(j: JourneyView, body: (Node | null)[], actions: (Node | null)[], redraw: () => void, title: MessageKey = 'wallet_title'): void {
  const ways = actions.filter((a): a is Node => a !== null);
  if (ways.length < 3) return j.show({ step: 'wallet', title: t(title), body, actions: ways }, redraw);
  j.show({ step: 'wallet', title: t(title), body: [...body, h('div', { class: 'actions stacked' }, ...ways)] }, redraw);
}

/** The same device, through the browser: create a `dc_api` request, ask the browser, post the answer. */
function sameDevice(j: JourneyView): void {
  const status = h('p', { class: 'hint', 'aria-live': 'polite' }, t('wallet_opening'));
  const error = errorLine();
  stage(j, [status, error], [], () => walletScreen(j));
  void (async () => {
    let created: WalletRequestCreated;
    try {
      created = await j.api.createWalletRequest('dc_api');
    } catch (err) {
      return failed(j, err);
    }
    if (!created.dc_api) return failed(j, new ApiFailure(0, 'unknown'));
    let response: string;
    try {
      response = await askBrowser(created.dc_api);
    } catch (err) {
      // The person closed the browser's wallet sheet (NotAllowedError, AbortError): nothing was shared.
      const name = err instanceof DOMException ? err.name : '';
      return name === 'NotAllowedError' || name === 'AbortError' ? cancelledScreen(j) : unavailableScreen(j);
    }
    if (!status.isConnected) return;
    status.textContent = t('wallet_checking');
    let answer: WalletRequest;
    try {
      answer = await j.api.walletResponse(created.id, response);
    } catch (err) {
      return failed(j, err);
    }
    if (!settled(j, answer)) follow(j, answer.id, status, () => undefined);
  })();
}

/**
 * The browser's Digital Credentials API (W3C, as shipped: `digital.requests[]` of protocol and
 * data, `mediation: 'required'`). The answer of an OpenID4VP request is `data.response`, the
 * wallet's compact JWE, encrypted to the service: the page passes it on unread.
 */
async function askBrowser(request: { protocol: string; data: unknown }): Promise<string> {
  const options = { mediation: 'required', digital: { requests: [{ protocol: request.protocol, data: request.data }] } };
  const credential = (await navigator.credentials.get(options as CredentialRequestOptions)) as unknown as { data?: unknown } | null;
  if (!credential) throw new DOMException('no credential', 'AbortError');
  const data = credential.data;
  const response = typeof data === 'string' ? data : (data as { response?: unknown } | undefined)?.response;
  if (typeof response !== 'string') throw new DOMException('no response in the credential', 'NotSupportedError');
  return response;
}

/** A wallet on another device: a QR code (and on a phone a link to the wallet app), followed until it answers. */
function crossDevice(j: JourneyView): void {
  const error = errorLine();
  const retry = h('button', { type: 'button', class: 'primary', hidden: true, onclick: () => crossDevice(j) }, t('retry'));
  stage(j, [h('p', { class: 'hint', 'aria-live': 'polite' }, t('loading')), error], [retry, documentInstead(j)], () => crossDevice(j));
  j.api.createWalletRequest('cross_device').then(
    (created) => {
      if (!error.isConnected) return;
      if (!created.cross_device) return failed(j, new ApiFailure(0, 'unknown'));
      codeScreen(j, created, created.cross_device.wallet_link);
    },
    (err: unknown) => {
      if (err instanceof ApiFailure && err.code.startsWith('wallet_')) return failed(j, err);
      error.textContent = j.failure(err);
      retry.hidden = !error.textContent;
    },
  );
}

/** The request as a QR code for a wallet on another device and, on a phone, a link that opens the wallet app. */
function codeScreen(j: JourneyView, created: WalletRequest, link: string): void {
  const status = h('p', { class: 'hint', 'aria-live': 'polite' }, t('wallet_waiting'));
  const until = new Intl.DateTimeFormat(document.documentElement.lang, { timeStyle: 'short' }).format(new Date(created.expires_at));
  const phone = onPhone();
  const qr = [h('p', null, t(phone ? 'wallet_scan_other' : 'wallet_scan')), h('div', { class: 'qr-box dense' }, qrCode(link, t('wallet_qr_label')))];
  stage(
    j,
    [
      ...(phone ? [h('p', null, t('wallet_link_hint')), h('p', null, h('a', { href: link, class: 'button primary wallet-link' }, t('wallet_link')))] : []),
      ...qr,
      h('p', { class: 'note' }, t('wallet_valid_until', { time: until })),
      status,
    ],
    [documentInstead(j)],
    () => codeScreen(j, created, link),
  );
  follow(j, created.id, status, (request) => {
    status.textContent = t(request.status === 'fetched' ? 'wallet_fetched' : 'wallet_waiting');
  });
}

/**
 * Asks where the request stands every POLL_MS while `anchor` is on the screen (a screen left, for
 * help say, stops asking). An answer that settles it moves on; otherwise `update`.
 */
function follow(j: JourneyView, id: string, anchor: Element, update: (request: WalletRequest) => void): void {
  const tick = async () => {
    if (!anchor.isConnected) return;
    let request: WalletRequest;
    try {
      request = await j.api.walletRequest(id);
    } catch (err) {
      // A lost connection or a busy service: ask again at the next turn. A link that no longer works ends here.
      if (err instanceof ApiFailure && (err.code.startsWith('session_') || err.code === 'journey_closed')) return void j.failure(err);
      return void window.setTimeout(tick, POLL_MS);
    }
    if (!anchor.isConnected || settled(j, request)) return;
    update(request);
    window.setTimeout(tick, POLL_MS);
  };
  window.setTimeout(tick, POLL_MS);
}

/** Shows the screen of a request that has its outcome (true), or leaves it to be followed (false). */
function settled(j: JourneyView, request: WalletRequest): boolean {
  if (request.status === 'accepted') acceptedScreen(j);
  else if (request.status === 'refused') refusedScreen(j, request.reason);
  else if (request.status === 'expired') expiredScreen(j);
  else return false;
  return true;
}

/** Accepted: the journey as it stands now (the wallet step done), then on when the person is ready. */
function acceptedScreen(j: JourneyView): void {
  const error = errorLine();
  const next = h('button', { type: 'button', class: 'primary', disabled: true, 'aria-busy': 'true' }, t('continue'));
  stage(j, [h('p', { role: 'status' }, t('wallet_accepted_body')), error], [next], () => acceptedScreen(j), 'wallet_accepted_title');
  refresh(j).then(
    () => {
      next.disabled = false;
      next.removeAttribute('aria-busy');
      next.onclick = () => j.next();
    },
    (err: unknown) => {
      error.textContent = j.failure(err);
    },
  );
}

/**
 * Refused: the reason in plain words, and the ways on (another try, another device, the
 * document). When the round allows no more tries the wallet step is over: the journey goes on
 * (the service decides what the refusal means for the case).
 */
function refusedScreen(j: JourneyView, reason: WalletRefusal | undefined): void {
  const words = h('p', { class: 'reason', role: 'alert' }, t(reason && reason in REFUSALS ? REFUSALS[reason] : 'wallet_refused_presentation_invalid'));
  const again = h('button', { type: 'button', class: 'primary', onclick: () => walletScreen(j) }, t('retry'));
  const instead = documentInstead(j);
  stage(j, [words], [again, instead], () => refusedScreen(j, reason), 'wallet_refused_title');
  refresh(j).then(
    () => {
      if (!again.isConnected || j.state.wallet?.status !== 'refused') return;
      // The step is over: the service counts it as answered, the document too (docs/wallet.md).
      instead?.remove();
      words.after(h('p', null, t('wallet_tries_over')));
      again.textContent = t('continue');
      again.onclick = () => j.next();
    },
    () => {},
  );
}

/** The person closed the wallet without sharing: nothing happened, try again or choose another way. */
function cancelledScreen(j: JourneyView): void {
  stage(
    j,
    [h('p', { role: 'status' }, t('wallet_cancelled_body'))],
    [
      h('button', { type: 'button', class: 'primary', onclick: () => sameDevice(j) }, t(onPhone() ? 'wallet_open' : 'wallet_browser')),
      h('button', { type: 'button', class: 'secondary', onclick: () => crossDevice(j) }, t('wallet_other_device')),
      documentInstead(j),
    ],
    () => cancelledScreen(j),
    'wallet_cancelled_title',
  );
}

/** The browser has the API but could not reach a wallet (none installed, say): another device then. */
function unavailableScreen(j: JourneyView): void {
  stage(
    j,
    [h('p', { role: 'alert' }, t('wallet_unavailable'))],
    [h('button', { type: 'button', class: 'primary', onclick: () => crossDevice(j) }, t('wallet_other_device')), documentInstead(j)],
    () => unavailableScreen(j),
  );
}

function expiredScreen(j: JourneyView): void {
  stage(
    j,
    [h('p', { role: 'alert' }, t('wallet_expired'))],
    [h('button', { type: 'button', class: 'primary', onclick: () => crossDevice(j) }, t('wallet_new_code')), documentInstead(j)],
    () => expiredScreen(j),
  );
}

/** A call that failed: the journey's own screens for an ended link, the step already over, otherwise the message and a way back. */
function failed(j: JourneyView, err: unknown): void {
  const code = err instanceof ApiFailure ? err.code : '';
  if (code === 'wallet_step_done') return void refresh(j).then(() => j.next(), (e: unknown) => failed(j, e));
  const text = code === 'wallet_request_limit_reached' ? t('wallet_limit') : j.failure(err);
  if (!text) return;
  stage(
    j,
    [h('p', { class: 'error', role: 'alert' }, text)],
    [code === 'wallet_request_limit_reached' ? null : h('button', { type: 'button', class: 'primary', onclick: () => walletScreen(j) }, t('retry')), documentInstead(j)],
    () => failed(j, err),
  );
}

/** The journey as the service now says (a presentation answered moves the wallet step on). */
async function refresh(j: JourneyView): Promise<void> {
  j.state = await j.api.state();
}
