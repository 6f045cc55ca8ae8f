import type { Api } from './api.ts';
import { h } from './dom.ts';
import { t } from './i18n.ts';
import type { MessageKey } from './messages/en.ts';
import type { EndReason, JourneyState, PieceKind, Screen } from './types.ts';
import type { UploadQueue } from './uploads.ts';

/**
 * What the screens share: the journey as a screen sees it, and the view helpers every screen
 * uses. journey.ts draws the screens and the screens call the journey back; both import this
 * module rather than each other.
 */

export interface PageSpec {
  /** The step named in browser messages; null for the ended screens. */
  step: Screen | null;
  title: string;
  body: (Node | null | false)[];
  actions?: (Node | null | false)[];
  /** Show the help button and the progress line (not on the ended screens). */
  chrome?: boolean;
}

/** Where the handoff to a phone is offered from, and why (null: the person chose it). */
export interface HandoffOpts {
  step: 'document' | 'face';
  reason: 'denied' | 'unavailable' | null;
}

/** The journey as a screen uses it (the Journey class in journey.ts). */
export interface JourneyView {
  readonly api: Api;
  state: JourneyState;
  /** The handoff to a phone is offered (this device is not itself a phone: its pointer is not a finger). */
  readonly offersHandoff: boolean;
  /** The person chose to stay on this device: the capture screens no longer move to the handoff by themselves. */
  handoffDeclined: boolean;
  /** The person chose the document over the wallet (where the flow allows it): the wallet step is passed. */
  walletDeclined: boolean;
  readonly captures: Map<PieceKind, Blob>;
  readonly uploads: UploadQueue;
  show(spec: PageSpec, redraw: () => void): void;
  has(kind: PieceKind): boolean;
  next(): void;
  lazy<M>(load: () => Promise<M>, use: (m: M) => void): void;
  end(reason: EndReason): void;
  completed(): void;
  failure(err: unknown): string;
  /** The handoff screen (its own chunk, with the QR code library): loaded on demand only. */
  handoff(opts: HandoffOpts): void;
  /** Tells the parent page a step the person is at elsewhere (on the phone, during a handoff). */
  reportStep(step: Screen): void;
}

export function errorText(code: string): string {
  const known: Record<string, MessageKey> = {
    network: 'error_network',
    image_too_large: 'error_image_too_large',
    image_type_unsupported: 'error_image_type_unsupported',
    image_unreadable: 'error_image_unreadable',
    image_dimensions_invalid: 'error_image_dimensions_invalid',
    piece_limit_reached: 'error_piece_limit_reached',
    unsupported_document_type: 'error_unsupported_document_type',
  };
  return t(known[code] ?? 'error_generic');
}

/** The "Continue on my phone" choice of the screens that need the camera, where the handoff is offered. */
export function handoffOffer(j: JourneyView, opts: HandoffOpts): HTMLButtonElement | null {
  return j.offersHandoff ? h('button', { type: 'button', class: 'link', onclick: () => j.handoff(opts) }, t('handoff_offer')) : null;
}

/** An error line announced to screen readers. */
export const errorLine = () => h('p', { class: 'error', role: 'alert' });

/** Runs an action with the button disabled (no double submission), showing an error in place on failure. */
export async function busy(button: HTMLButtonElement, error: HTMLElement, j: Pick<JourneyView, 'failure'>, act: () => Promise<void>): Promise<void> {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  error.textContent = '';
  try {
    await act();
  } catch (err) {
    error.textContent = j.failure(err);
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}
