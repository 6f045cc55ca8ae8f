/**
 * The wait of a claiming loop (webhook dispatcher, checks runner): sleeps until the next poll, or
 * less when `wake()` is called (a database notification, a job finishing, stop). A wake that comes
 * while the loop is busy claiming is kept, so the next sleep returns at once and nothing that
 * became due in between waits for a whole poll.
 */
export class Wakeup {
  private woken = false;
  private waiter: (() => void) | null = null;

  /** Start of a loop turn: wakes before this point are answered by the claim about to run. */
  reset(): void {
    this.woken = false;
  }

  get pending(): boolean {
    return this.woken;
  }

  wake(): void {
    this.woken = true;
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  /** Resolves after `ms`, or earlier on `wake()`; at once if a wake is pending. */
  sleep(ms: number): Promise<void> {
    if (this.woken) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve();
      }, ms);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
