import type { FastifyRequest } from 'fastify';
import type { Tx } from '@idv/db';
import { blockingStep, roundSteps, type FlowStep } from '@idv/domain';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { journeyOf } from '../../http/session-auth.ts';
import { journeyStateOf, openJourney, requireOpen, type OpenedJourney } from '../../services/journey-state.ts';

export type OpenJourney = OpenedJourney & { journey: NonNullable<OpenedJourney['journey']> };

/** The step must be one this round asks for, and consent must come first. */
export function requireStep(j: OpenedJourney, step: FlowStep): void {
  if (!roundSteps(j.flow, j.progress.resubmission).includes(step)) {
    throw new ApiError('journey_step_not_asked', `The journey of this case does not ask for the ${step} step.`, step);
  }
  const blocking = blockingStep(j.flow, j.progress, step);
  if (blocking) throw new ApiError('journey_step_blocked', `The ${blocking} step comes first.`, blocking);
}

/**
 * One write of the journey: in one transaction with the case row locked, the journey is opened
 * (refused unless open), the act is done with its journal entry, and the new state is returned.
 */
export async function journeyWrite(
  ctx: AppContext,
  req: FastifyRequest,
  act: (tx: Tx, j: OpenJourney, now: Date, afterCommit: (fn: () => Promise<void>) => void) => Promise<void>,
) {
  const { session } = journeyOf(req);
  const now = ctx.now();
  const later: (() => Promise<void>)[] = [];
  const state = await ctx.db.transaction(async (tx) => {
    const j = await openJourney(tx, session, now);
    requireOpen(j);
    await act(tx, j, now, (fn) => later.push(fn));
    return journeyStateOf(tx, await openJourney(tx, session, now));
  });
  // Clean-ups that must not happen unless the transaction committed (deleting replaced blobs).
  for (const fn of later) await fn().catch((err) => req.log.warn({ err }, 'journey clean-up after commit failed'));
  return state;
}
