import { ApiFailure } from '../api.ts';
import { h } from '../dom.ts';
import { t } from '../i18n.ts';
import type { MessageKey } from '../messages/en.ts';
import { qrCode } from '../qr.ts';
import { errorLine, type HandoffOpts, type JourneyView } from '../view.ts';
import type { Handoff, HandoffCreated } from '../types.ts';

/**
 * Continuing on a phone (docs/journey.md#continuing-on-a-phone): this device asks the service for
 * a short code, shows it as a QR code and a short link, then follows the journey (the phone moves
 * it on) until it ends, where it shows the same last screen as the phone and tells the parent page
 * the same messages. This module is a chunk of its own, with the QR code library: only a device
 * that shows the handoff downloads it.
 */

/** How often the desktop asks where the phone is: a step is a minute or so, two seconds is prompt enough. */
const POLL_MS = 2000;

/** The title of each step, as the desktop names what the person is doing on the phone. */
const STEP_TITLES: Record<NonNullable<Handoff['journey']['step']>, MessageKey> = {
  consent: 'consent_title',
  applicant: 'applicant_title',
  questionnaire: 'questionnaire_title',
  wallet: 'wallet_title',
  document: 'document_title',
  face: 'face_title',
  check: 'check_title',
};

const reasonLine = (opts: HandoffOpts) =>
  opts.reason ? h('p', { class: 'reason' }, t(opts.reason === 'denied' ? 'handoff_camera_blocked' : 'handoff_no_camera')) : null;

/** The short link to type, without its scheme; a narrow screen breaks it before the code, never inside it. */
function shortLink(url: string): HTMLElement {
  const { host, pathname } = new URL(url);
  return h('p', { class: 'short-link', translate: 'no' }, host, h('wbr'), h('span', { class: 'nowrap' }, pathname));
}

/** Back to this device: the journey as it stands now (the phone may have moved it on), no more automatic handoff. */
function stayHere(j: JourneyView): HTMLButtonElement {
  const error = errorLine();
  const button = h('button', { type: 'button', class: 'secondary' }, t('handoff_use_this_device'));
  button.onclick = () => {
    j.handoffDeclined = true;
    button.disabled = true;
    j.api.state().then(
      (state) => {
        j.state = state;
        j.next();
      },
      (err: unknown) => {
        button.disabled = false;
        error.textContent = j.failure(err);
        button.after(error);
      },
    );
  };
  return button;
}

/** Asks the service for a code, then shows it. */
export function handoffScreen(j: JourneyView, opts: HandoffOpts): void {
  const error = errorLine();
  const retry = h('button', { type: 'button', class: 'primary', hidden: true, onclick: () => handoffScreen(j, opts) }, t('retry'));
  j.show(
    { step: opts.step, title: t('handoff_title'), body: [reasonLine(opts), h('p', { class: 'hint', 'aria-live': 'polite' }, t('loading')), error], actions: [retry, stayHere(j)] },
    () => handoffScreen(j, opts),
  );
  j.api.createHandoff().then(
    (created) => {
      if (error.isConnected) codeScreen(j, opts, created);
    },
    (err: unknown) => {
      if (err instanceof ApiFailure && err.code === 'handoff_limit_reached') {
        error.textContent = t('handoff_limit');
        return;
      }
      error.textContent = j.failure(err);
      retry.hidden = !error.textContent;
    },
  );
}

/** The code as a QR code and a short link to type, until the phone opens it. */
function codeScreen(j: JourneyView, opts: HandoffOpts, created: HandoffCreated): void {
  const status = h('p', { class: 'hint', 'aria-live': 'polite' }, t('handoff_waiting'));
  const until = new Intl.DateTimeFormat(document.documentElement.lang, { timeStyle: 'short' }).format(new Date(created.expires_at));
  j.show(
    {
      step: opts.step,
      title: t('handoff_title'),
      body: [
        reasonLine(opts),
        h('p', null, t('handoff_scan')),
        h('div', { class: 'qr-box' }, qrCode(created.url, t('handoff_qr_label'))),
        h('p', null, t('handoff_type')),
        shortLink(created.url),
        h('p', { class: 'note' }, t('handoff_valid_until', { time: until })),
        status,
      ],
      actions: [stayHere(j)],
    },
    () => codeScreen(j, opts, created),
  );
  follow(j, opts, created.id, status, (handoff) => {
    if (handoff.status === 'opened') followingScreen(j, opts, handoff);
  });
}

/** The phone has the journey: this page says where the person is there, and waits for the end. */
function followingScreen(j: JourneyView, opts: HandoffOpts, handoff: Handoff): void {
  const where = h('p', { class: 'hint', 'aria-live': 'polite' });
  const show = (current: Handoff) => {
    const step = current.journey.step;
    where.textContent = step ? t('handoff_phone_step', { step: t(STEP_TITLES[step]) }) : '';
  };
  show(handoff);
  j.show(
    { step: opts.step, title: t('handoff_title'), body: [h('p', null, t('handoff_opened')), where], actions: [stayHere(j)] },
    () => followingScreen(j, opts, handoff),
  );
  reportPhoneStep(j, handoff);
  follow(j, opts, handoff.id, where, (current) => {
    handoff = current;
    show(current);
  });
}

function expiredScreen(j: JourneyView, opts: HandoffOpts): void {
  j.show(
    {
      step: opts.step,
      title: t('handoff_title'),
      body: [h('p', null, t('handoff_expired'))],
      actions: [h('button', { type: 'button', class: 'primary', onclick: () => handoffScreen(j, opts) }, t('handoff_new_code')), stayHere(j)],
    },
    () => expiredScreen(j, opts),
  );
}

function reportPhoneStep(j: JourneyView, handoff: Handoff): void {
  if (handoff.status === 'opened' && handoff.journey.step) j.reportStep(handoff.journey.step);
}

/**
 * Asks where the handoff and the journey stand every POLL_MS while `anchor` is on the screen (a
 * screen left, for help say, stops asking; coming back starts again). The journey's end is shown
 * here as on the phone; a code or phone session that expired offers a new code; otherwise `update`.
 */
function follow(j: JourneyView, opts: HandoffOpts, id: string, anchor: Element, update: (handoff: Handoff) => void): void {
  const tick = async () => {
    if (!anchor.isConnected) return;
    let handoff: Handoff;
    try {
      handoff = await j.api.handoff(id);
    } catch (err) {
      // A lost connection or a busy service: ask again at the next turn. A link that no longer works ends here.
      if (err instanceof ApiFailure && err.code.startsWith('session_token')) return void j.failure(err);
      return void window.setTimeout(tick, POLL_MS);
    }
    if (!anchor.isConnected) return;
    const journey = handoff.journey.status;
    if (journey === 'completed') return j.completed();
    if (journey !== 'open') return j.end(journey);
    if (handoff.status === 'expired') return expiredScreen(j, opts);
    reportPhoneStep(j, handoff);
    update(handoff);
    window.setTimeout(tick, POLL_MS);
  };
  window.setTimeout(tick, POLL_MS);
}
