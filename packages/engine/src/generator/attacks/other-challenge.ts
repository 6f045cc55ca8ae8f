import type { Rng } from '../rng.ts';

/**
 * GENERATED presentation attack: a genuine video of the right person, recorded for one challenge,
 * replayed for another. The frames are real (a bona fide clip's); what is generated is the
 * challenge they are sent against: the same movements in another order, or other movements when
 * the clip has only one. Planarity does not catch it (the face in it is a real, round head): the
 * sequence judge's order check does, by comparing the movements seen with the ones asked.
 */
export const CHALLENGE_MOVES = ['turn_left', 'turn_right', 'look_up', 'look_down'] as const;
export type Move = (typeof CHALLENGE_MOVES)[number];

/** A challenge the clip's movements (`performed`, in order) do not meet; never equal to them. */
export function otherChallenge(performed: readonly string[], rng: Rng): Move[] {
  const known = performed.filter((m): m is Move => (CHALLENGE_MOVES as readonly string[]).includes(m));
  // Two or more different movements: the same ones, reversed (the closest wrong answer); a
  // palindrome (left, right, left) reads the same reversed, so two neighbours are swapped instead.
  if (new Set(known).size >= 2) {
    const reversed = [...known].reverse();
    if (reversed.some((m, i) => m !== known[i])) return reversed;
    const i = known.findIndex((m, k) => k > 0 && m !== known[k - 1]);
    [reversed[i - 1], reversed[i]] = [reversed[i]!, reversed[i - 1]!];
    return reversed;
  }
  // One movement (or none known): ask for two others, in a random order.
  const others = CHALLENGE_MOVES.filter((m) => !known.includes(m));
  const first = rng.pick(others);
  const second = rng.pick(others.filter((m) => m !== first));
  return [first, second];
}
