import { median } from '../middle.ts';

/**
 * The trained anti-spoofing network (medium/anti-spoof-net.ts) over a live sequence, pure: the
 * engine runs it on some of the frames read (sequence-read.ts) and judges the capture by the median
 * of their live log-odds. A print or a screen held up to the camera is there on every frame; one
 * frame the network misreads (a webcam's blur, a turned head, a shadow) does not decide alone.
 * The threshold was chosen by bench/checks/pad-sequence.ts on its choosing half (NUAA's odd
 * subjects, one person's bona fide clips): halfway in log-odds between the bona fide captures'
 * 3rd percentile and the real attacks' 95th; docs/liveness.md gives the rates on the other half.
 */
export const SEQUENCE_NETWORK = {
  /** Frames with a face the network must have read for the capture to be judged at all. */
  minFrames: 3,
  /** An attack when the median live log-odds of the frames read is under this. */
  maxMedianLogit: -1.9,
  /** Of the frames read by the face models, the network reads every this-many-th (its CPU: about 15 ms a frame). */
  every: 2,
} as const;

export interface SequenceNetworkJudgement {
  /** Frames the network read with a face. */
  frames: number;
  /** Median live log-odds over them (null when too few to judge). */
  median: number | null;
  /** Of them, how many alone would be under the threshold. */
  under: number;
  attack: boolean;
}

/** The capture's judgement from the network's live log-odds on its frames. */
export function judgeSequenceNetwork(logits: readonly number[], limits: { minFrames: number; maxMedianLogit: number } = SEQUENCE_NETWORK): SequenceNetworkJudgement {
  const under = logits.filter((v) => v < limits.maxMedianLogit).length;
  if (logits.length < limits.minFrames) return { frames: logits.length, median: null, under, attack: false };
  const m = median(logits);
  return { frames: logits.length, median: m, under, attack: m < limits.maxMedianLogit };
}
