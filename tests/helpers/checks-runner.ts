import { PieceBlobs } from '@idv/case-data';
import { ChecksRunner, type ChecksRunnerOptions } from '@idv/worker';
import type { TestApp } from './app.ts';

/**
 * A checks runner on the test app's own database, keys, vault, blobs and clock, reading cases with
 * `analyser` (a real ChecksPool): what a worker process builds, for tests that drain it themselves.
 */
export function checksRunnerFor(t: TestApp, analyser: ChecksRunnerOptions['analyser'], options: Partial<Pick<ChecksRunnerOptions, 'leaseMs' | 'log' | 'now' | 'pieces' | 'maxAttempts'>> = {}): ChecksRunner {
  return new ChecksRunner({
    db: t.database.db,
    keyring: t.ctx.keyring,
    vault: t.ctx.vault,
    pieces: new PieceBlobs(t.ctx.blobs, t.ctx.vault, t.ctx.keyring),
    analyser,
    now: t.clock.now,
    ...options,
  });
}
