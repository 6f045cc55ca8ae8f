import { verifyPresentation, type VerifyInput, type VerifyResult } from '@idv/wallet';
import type { DestinationPolicy } from '@idv/webhooks';
import { statusListFetcher } from './wallet-status-list.ts';

/**
 * What crosses to the thread: the verification's input without its fetcher, the rules the fetcher
 * follows there, and the status lists the service publishes itself (the sandbox test issuer's, by
 * URI): those are read from here rather than fetched, their signature checked like any other's.
 */
export type WalletVerifyJob = Omit<VerifyInput, 'fetchStatusList'> & { statusPolicy: DestinationPolicy; ownStatusLists?: Record<string, string> };

/**
 * The task file of the API's wallet verification thread (wallet-verification.ts): decrypts and
 * verifies one presentation. The status list is fetched from the thread, under the same
 * destination rules as on the event loop. The default export is what piscina runs.
 */
export default function verifyInThread({ statusPolicy, ownStatusLists = {}, ...input }: WalletVerifyJob): Promise<VerifyResult> {
  const fetch = statusListFetcher(statusPolicy);
  const own = new Map(Object.entries(ownStatusLists));
  return verifyPresentation({ ...input, fetchStatusList: (uri) => (own.has(uri) ? Promise.resolve(own.get(uri)!) : fetch(uri)) });
}
