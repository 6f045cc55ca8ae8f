import { verifyPresentation, type VerifyInput, type VerifyResult } from '@idv/wallet';
import type { DestinationPolicy } from '@idv/webhooks';
import { statusListFetcher } from './wallet-status-list.ts';

/** What crosses to the thread: the verification's input without its fetcher, and the rules the fetcher follows there. */
export type WalletVerifyJob = Omit<VerifyInput, 'fetchStatusList'> & { statusPolicy: DestinationPolicy };

/**
 * The task file of the API's wallet verification thread (wallet-verification.ts): decrypts and
 * verifies one presentation. The status list is fetched from the thread, under the same
 * destination rules as on the event loop. The default export is what piscina runs.
 */
export default function verifyInThread({ statusPolicy, ...input }: WalletVerifyJob): Promise<VerifyResult> {
  return verifyPresentation({ ...input, fetchStatusList: statusListFetcher(statusPolicy) });
}
