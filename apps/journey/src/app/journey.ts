import { ApiFailure, type Api } from './api.ts';
import { h } from './dom.ts';
import { dateTime, t } from './i18n.ts';
import type { MessageKey } from './messages/en.ts';
import type { Parent } from './parent.ts';
import { applicantScreen, consentScreen, documentScreen, questionnaireScreen } from './screens/steps.ts';
import type { EndReason, FlowStep, JourneyState, PieceKind, Screen } from './types.ts';
import { UploadQueue } from './uploads.ts';
import { errorText, type HandoffOpts, type JourneyView, type PageSpec } from './view.ts';

/**
 * The journey in the browser: the state the service returned, the photos in hand, and the screen
 * shown. Every screen is drawn from the state (the service is the memory: a reload or a new link
 * resumes at the same place).
 */
export class Journey implements JourneyView {
  readonly captures = new Map<PieceKind, Blob>();
  readonly uploads: UploadQueue;
  /** A phone's pointer is a finger: no handoff offered there (it is where the journey is handed to). */
  readonly offersHandoff = !window.matchMedia('(pointer: coarse)').matches;
  handoffDeclined = false;
  walletDeclined = false;
  private lastStep: Screen | null = null;
  private current: () => void = () => this.next();

  constructor(
    readonly api: Api,
    public state: JourneyState,
    readonly parent: Parent,
    private readonly root: HTMLElement,
  ) {
    this.uploads = new UploadQueue(api, (s) => (this.state = s));
  }

  /** Puts a screen in place, moves the focus to its title, and tells the parent page the step. */
  show(spec: PageSpec, redraw: () => void): void {
    this.current = redraw;
    const title = h('h1', { tabindex: '-1' }, spec.title);
    const chrome = spec.chrome !== false;
    const position = chrome && spec.step ? this.position(spec.step) : null;
    const header = chrome
      ? h(
          'header',
          { class: 'bar' },
          h('span', { class: 'position' }, position ? t('step_of', position) : ''),
          spec.step === 'help' ? null : h('button', { type: 'button', class: 'link', onclick: () => this.help() }, t('help')),
        )
      : null;
    this.root.replaceChildren(
      ...[header, title, ...spec.body, spec.actions?.length ? h('div', { class: 'actions' }, ...spec.actions) : null].filter((n): n is Node => Boolean(n)),
    );
    this.root.removeAttribute('aria-busy');
    title.focus();
    window.scrollTo(0, 0);
    if (spec.step) this.reportStep(spec.step);
    else this.lastStep = null;
  }

  reportStep(step: Screen): void {
    if (step !== this.lastStep) this.parent.post({ type: 'service:step', step });
    this.lastStep = step;
  }

  handoff(opts: HandoffOpts): void {
    this.lazy(() => import('./screens/handoff.ts'), (m) => m.handoffScreen(this, opts));
  }

  /** The first screen of a phone that opened a handoff code: where the journey comes from, then on. */
  phoneIntro(): void {
    if (this.state.status !== 'open') return this.next();
    this.show(
      {
        step: null,
        title: t('handoff_phone_title'),
        body: [h('p', null, t('handoff_phone_body'))],
        actions: [h('button', { type: 'button', class: 'primary', onclick: () => this.next() }, t('continue'))],
      },
      () => this.phoneIntro(),
    );
  }

  private position(step: Screen): { n: number; total: number } | null {
    const order: Screen[] = [...this.state.steps, 'check'];
    const i = order.indexOf(step === 'uploading' ? 'check' : step);
    return i < 0 ? null : { n: i + 1, total: order.length };
  }

  /** A photo is in hand for this kind: received by the service or taken in this visit. */
  has(kind: PieceKind): boolean {
    return this.state.pieces.some((p) => p.kind === kind) || this.uploads.has(kind);
  }

  /** Goes to the first thing left to do. */
  next(): void {
    const s = this.state;
    if (s.status === 'completed') return this.completed();
    if (s.status !== 'open') return this.end(s.status === 'declined' ? 'declined' : 'expired');
    for (const step of s.steps) {
      const todo = this.todo(step);
      if (todo) return todo();
    }
    this.lazy(() => import('./screens/finish.ts'), (m) => m.checkScreen(this));
  }

  private todo(step: FlowStep): (() => void) | null {
    const s = this.state;
    const capture = (kind: PieceKind) => () => this.lazy(() => import('./screens/capture.ts'), (m) => m.captureScreen(this, kind, () => this.next()));
    switch (step) {
      case 'consent':
        return s.consent.given ? null : () => consentScreen(this);
      case 'applicant':
        return s.applicant.done ? null : () => applicantScreen(this);
      case 'questionnaire':
        return s.questionnaire.done ? null : () => questionnaireScreen(this);
      case 'wallet': {
        // Done when answered (accepted, or refused as often as a round allows), or when the person chose the document instead.
        const done = !s.wallet || s.wallet.status !== null || (s.wallet.document_fallback && s.document.chosen !== null) || this.walletDeclined;
        // Its own chunk, downloaded only by a journey whose flow offers the wallet.
        return done ? null : () => this.lazy(() => import('./screens/wallet.ts'), (m) => m.walletScreen(this));
      }
      case 'document': {
        // The wallet's answer stands for the document (as the service counts it: docs/wallet.md).
        if (s.wallet?.status) return null;
        if (!s.document.chosen) return () => documentScreen(this);
        const side = s.document.sides.find((k) => !this.has(k));
        return side ? capture(side) : null;
      }
      case 'face': {
        if (!this.has('selfie')) return () => this.lazy(() => import('./screens/capture.ts'), (m) => m.faceIntro(this));
        // The movements are always filmed as the live sequence, never sent as stills: the service
        // lists no still among the required pieces, and a flow that allows stills (for a client
        // that cannot film) still takes the sequence (docs/liveness.md#the-live-sequence).
        const filmed = !s.required_pieces.includes('liveness_frame') || this.has('liveness_frame');
        return filmed ? null : () => this.lazy(() => import('./screens/sequence.ts'), (m) => m.sequenceScreen(this, () => this.next()));
      }
    }
  }

  /**
   * Screens loaded on demand (camera, review). They are fetched in the background once the first
   * screen is up (see `prefetch`); if one still cannot be loaded (connection lost), the person
   * gets a message and a retry instead of a blank page.
   */
  lazy<M>(load: () => Promise<M>, use: (m: M) => void): void {
    load().then(use, () => {
      const retry = h('button', { type: 'button', class: 'primary', onclick: () => this.lazy(load, use) }, t('retry'));
      this.show({ step: null, title: t('app_title'), body: [h('p', { class: 'error', role: 'alert' }, t('error_network'))], actions: [retry] }, () =>
        this.lazy(load, use),
      );
    });
  }

  /**
   * Downloads the on-demand screens as soon as the first screen is drawn, so a connection lost
   * later (during a capture, say) does not stop the person from reaching the review. Not at idle
   * time: the camera's hints analyse every frame, and an idle callback can then wait for minutes.
   */
  prefetch(): void {
    void import('./screens/capture.ts').catch(() => {});
    void import('./screens/finish.ts').catch(() => {});
    if (this.state.steps.includes('wallet')) void import('./screens/wallet.ts').catch(() => {});
  }

  help(): void {
    const back = this.current;
    this.show(
      {
        step: 'help',
        title: t('help_title'),
        body: [h('ul', { class: 'tips' }, ...(['help_light', 'help_still', 'help_camera', 'help_privacy'] as MessageKey[]).map((k) => h('li', null, t(k))))],
        actions: [
          h('button', { type: 'button', class: 'primary', onclick: back }, t('help_back')),
          h('button', { type: 'button', class: 'secondary', onclick: () => this.end('later') }, t('help_later')),
        ],
      },
      () => this.help(),
    );
  }

  end(reason: EndReason): void {
    showEnded(this.root, reason, { time: dateTime(this.state.expires_at) });
    this.parent.post({ type: 'service:ended', reason });
  }

  completed(): void {
    showMessage(this.root, 'completed_title', 'completed_body');
    this.parent.post({ type: 'service:completed' });
  }

  /** Maps a failed call to what the person sees: the ended screens, or a message to show in place. */
  failure(err: unknown): string {
    if (err instanceof ApiFailure) {
      if (err.code === 'session_expired') {
        this.end('expired');
        return '';
      }
      if (err.code === 'session_token_invalid' || err.code === 'session_token_missing') {
        this.end('invalid_link');
        return '';
      }
      if (err.code === 'journey_closed') {
        void this.api.state().then((s) => {
          this.state = s;
          this.next();
        }, () => this.end('expired'));
        return '';
      }
      return errorText(err.code);
    }
    return t('error_generic');
  }
}

/** A last screen: a title and a sentence, no button (nothing more to do here). */
export function showMessage(root: HTMLElement, title: MessageKey, body: MessageKey, vars: Record<string, string> = {}): void {
  const heading = h('h1', { tabindex: '-1' }, t(title));
  root.replaceChildren(h('div', { class: 'ended' }, heading, h('p', null, t(body, vars))));
  root.removeAttribute('aria-busy');
  heading.focus();
}

export function showEnded(root: HTMLElement, reason: EndReason | 'refused', vars: Record<string, string> = {}): void {
  const keys: Record<EndReason | 'refused', [MessageKey, MessageKey]> = {
    declined: ['declined_title', 'declined_body'],
    expired: ['expired_title', 'expired_body'],
    invalid_link: ['invalid_link_title', 'invalid_link_body'],
    later: ['later_title', 'later_body'],
    refused: ['refused_title', 'refused_body'],
  };
  showMessage(root, keys[reason][0], keys[reason][1], vars);
}
