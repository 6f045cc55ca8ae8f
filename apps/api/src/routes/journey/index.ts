import type { App, AppContext } from '../../context.ts';
import { registerJourneyFaceSequence } from './face-sequence.ts';
import { registerJourneyFinish } from './finish.ts';
import { registerJourneyFrame } from './frame.ts';
import { registerJourneyHandoffs } from './handoffs.ts';
import { registerJourneyPieces } from './pieces.ts';
import { registerJourneyState } from './state.ts';
import { registerJourneySteps } from './steps.ts';
import { registerJourneyWallet } from './wallet.ts';

/** The hosted journey's own routes, under /v1/sessions/current, authenticated by the session token only (and the phone's opening of a handoff code). */
export function registerJourneyRoutes(app: App, ctx: AppContext): void {
  registerJourneyState(app, ctx);
  registerJourneySteps(app, ctx);
  registerJourneyPieces(app, ctx);
  registerJourneyFaceSequence(app, ctx);
  registerJourneyFinish(app, ctx);
  registerJourneyFrame(app, ctx);
  registerJourneyHandoffs(app, ctx);
  registerJourneyWallet(app, ctx);
}
