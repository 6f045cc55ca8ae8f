import type { Tenant } from '@idv/db';

/**
 * Hands a resubmission to the hosted journey once the decision is committed. The journey reads
 * the case state (resubmission_requested and its steps) when the person comes back, so the
 * built-in relauncher has nothing to transmit; a deployment that pushes the relaunch elsewhere
 * (a message to the journey service, an SMS with a new link) provides its own. When it fails the
 * decision stays recorded and the call fails with journey_relaunch_failed; a retry relaunches.
 */
export interface JourneyRelauncher {
  relaunch(tenant: Tenant, caseId: string, steps: readonly string[]): Promise<void>;
}

export const builtInJourneyRelauncher: JourneyRelauncher = {
  relaunch: async () => {},
};
