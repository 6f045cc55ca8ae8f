import { Piscina } from 'piscina';
import type { VerifyResult } from '@idv/wallet';
import type { WalletVerifyJob } from './wallet-verify-task.ts';

/**
 * Wallet presentations verified in a worker thread (wallet-verify-task.ts), never on the API's
 * event loop: an mdoc's CBOR decoding and schema checks take 50–200 ms of CPU in JavaScript
 * (docs/wallet.md), which would hold every other request meanwhile. One thread (a presentation
 * arrives once per case), started with the first presentation and stopped after a minute without one.
 */
export class WalletVerification {
  private readonly pool: Piscina;

  constructor(options: { threads?: number; maxQueue?: number } = {}) {
    this.pool = new Piscina({
      filename: new URL('./wallet-verify-task.ts', import.meta.url).href,
      minThreads: 0,
      maxThreads: options.threads ?? 1,
      idleTimeout: 60_000,
      maxQueue: options.maxQueue ?? 64,
    });
  }

  /** True when presentations already wait beyond the queue's bound: the caller answers 503 before using the request. */
  get busy(): boolean {
    return this.pool.queueSize >= this.pool.options.maxQueue;
  }

  verify(job: WalletVerifyJob): Promise<VerifyResult> {
    return this.pool.run(job) as Promise<VerifyResult>;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}
