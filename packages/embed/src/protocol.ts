/**
 * The messages the framed journey and the embedding page exchange (spec section 6), defined once
 * for the journey and the integrator script. None carries a result or personal data. No DOM code
 * and no side effect, so the journey's bundle takes only the constants it uses.
 */

/** Version of the handshake: the journey says hello with it and waits for an init with the same. */
export const PROTOCOL_VERSION = 1;

/** The screens the journey reports as `step`, in the order a full flow shows them (help is reachable from any). */
export const JOURNEY_STEPS = ['consent', 'applicant', 'questionnaire', 'wallet', 'document', 'face', 'check', 'uploading', 'help'] as const;
export type JourneyStep = (typeof JOURNEY_STEPS)[number];

/** Why the journey ended without the person finishing it (`completed` is its own event). */
export const END_REASONS = ['declined', 'expired', 'invalid_link', 'later'] as const;
export type EndReason = (typeof END_REASONS)[number];

/** What the embedding page receives through `onEvent`, typed. */
export type JourneyEvent =
  /** The journey has drawn its first screen (or its expired or invalid-link screen, followed by `ended`). */
  | { type: 'ready' }
  /** The person is at this screen now (sent once per change). */
  | { type: 'step'; step: JourneyStep }
  /** Everything the flow asks has been sent: the case is being processed. */
  | { type: 'completed' }
  /** The journey ended; with `expired`, a new session for the same case resumes it (see `renewUrl`). */
  | { type: 'ended'; reason: EndReason }
  /** The height in pixels the journey needs (the integrator script sizes the frame with it). */
  | { type: 'resize'; height: number };

export type JourneyEventType = JourneyEvent['type'];

/** The prefix of every message on the wire, so that a page's other messages are never mistaken for the journey's. */
type Wire<E> = E extends { type: infer T extends string } ? Omit<E, 'type'> & { type: `service:${T}` } : never;

/** What the journey posts to the parent: `service:hello` first, then one message per event. */
export type JourneyMessage = { type: 'service:hello'; version: typeof PROTOCOL_VERSION } | Wire<JourneyEvent>;

/** What the parent answers to `service:hello`, sent to the journey's origin only. */
export interface InitMessage {
  type: 'service:init';
  version: typeof PROTOCOL_VERSION;
}

const isOneOf = <T extends string>(list: readonly T[], value: unknown): value is T => typeof value === 'string' && (list as readonly string[]).includes(value);

/**
 * Validates a message received from the journey's frame into a typed event (`hello` for the
 * handshake); anything else, including extra fields, is dropped. Call it only for messages whose
 * `event.source` is the frame and `event.origin` the journey's origin.
 */
export function parseMessage(data: unknown): JourneyEvent | { type: 'hello' } | null {
  if (!data || typeof data !== 'object') return null;
  const m = data as Record<string, unknown>;
  switch (m.type) {
    case 'service:hello':
      return m.version === PROTOCOL_VERSION ? { type: 'hello' } : null;
    case 'service:ready':
      return { type: 'ready' };
    case 'service:completed':
      return { type: 'completed' };
    case 'service:step':
      return isOneOf(JOURNEY_STEPS, m.step) ? { type: 'step', step: m.step } : null;
    case 'service:ended':
      return isOneOf(END_REASONS, m.reason) ? { type: 'ended', reason: m.reason } : null;
    case 'service:resize':
      return typeof m.height === 'number' && Number.isFinite(m.height) && m.height > 0 && m.height < 100_000
        ? { type: 'resize', height: Math.ceil(m.height) }
        : null;
    default:
      return null;
  }
}
