import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request id (`req_…`) of the API request whose work is running, carried through async calls
 * so that what the request queues (a check job) or causes (an event in the outbox) records it
 * without every function on the way passing it along. The worker runs a job's work under the
 * job's request id, so the events its decision causes carry it too: one id can be followed in the
 * logs from the API through the checks to the webhook delivery. An id, never personal data.
 */
const storage = new AsyncLocalStorage<string>();

/** Runs `fn` (and everything it starts) as the work of request `requestId`; null runs it as no request's. */
export function runForRequest<T>(requestId: string | null, fn: () => T): T {
  return requestId ? storage.run(requestId, fn) : storage.exit(fn);
}

/** The request id of the work running now, or null (background work, tests). */
export function currentRequestId(): string | null {
  return storage.getStore() ?? null;
}
