/**
 * The failures in a row of a background loop (usage flush, claims, retention) meeting a restarting
 * database: one warning at the first failure, one line at the recovery, a doubling wait between
 * tries. Only the error's name and code are logged: a query error's message may carry personal data.
 */
export interface StreakLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export class FailureStreak {
  private failures = 0;
  private since = 0;

  constructor(
    private readonly what: string,
    private readonly log: StreakLog,
    private readonly baseMs = 500,
    private readonly maxMs = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  get failing(): boolean {
    return this.failures > 0;
  }

  /** Records a failure; returns how long to wait before the next try. */
  failed(err: unknown): number {
    if (this.failures === 0) {
      this.since = this.clock();
      this.log.warn({ err: errorCode(err) }, `${this.what} failed; retrying until it succeeds`);
    }
    this.failures += 1;
    return Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.failures - 1, 20));
  }

  succeeded(): void {
    if (this.failures === 0) return;
    this.log.info({ failures: this.failures, seconds: Math.round((this.clock() - this.since) / 100) / 10 }, `${this.what} works again`);
    this.failures = 0;
  }
}

/** Name and code of an error and of its causes (drizzle wraps the driver's error), nothing more. */
export function errorCode(err: unknown): { name?: string; code?: string } {
  let e = err as { name?: unknown; code?: unknown; cause?: unknown } | undefined;
  const out: { name?: string; code?: string } = {};
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++, e = e.cause as typeof e) {
    if (!out.name && typeof e.name === 'string') out.name = e.name;
    if (typeof e.code === 'string') out.code = e.code;
  }
  return out;
}
