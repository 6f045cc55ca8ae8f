import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { combineParts } from '../analyse-case.ts';
import type { CaseAnalysis, CaseInput, DocumentPart, FacePart } from '../case-types.ts';
import type { PoolTask } from './worker.ts';

export interface ChecksPoolOptions {
  /** Worker threads (default: the machine's cores, at most 4). Each loads every model once. */
  threads?: number;
  /** Cases waiting beyond the threads' capacity before `analyse` rejects (default unbounded). */
  maxQueue?: number;
}

/**
 * A pool of worker threads running the engine, so that no image work touches the event loop of
 * the API or the worker. A case is split into two tasks that run in parallel, the document part
 * and the face part (about the same cost each), then combined on the calling thread: on two
 * cores a case takes about the time of its slower half rather than the sum.
 */
export class ChecksPool {
  private readonly pool: Piscina;
  readonly threads: number;

  constructor(options: ChecksPoolOptions = {}) {
    this.threads = options.threads ?? Math.max(1, Math.min(4, availableParallelism()));
    this.pool = new Piscina({
      filename: new URL('./worker.ts', import.meta.url).href,
      // Threads start with the first case (or warmUp): a process that never analyses pays nothing.
      minThreads: 0,
      maxThreads: this.threads,
      // A thread runs one task at a time: the models are synchronous CPU work on the wasm backend.
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
      maxQueue: options.maxQueue ?? Number.POSITIVE_INFINITY,
    });
  }

  async analyse(input: CaseInput): Promise<CaseAnalysis> {
    const started = Date.now();
    const [doc, face] = await Promise.all([
      this.pool.run({ task: 'document', input } satisfies PoolTask) as Promise<DocumentPart>,
      this.pool.run({ task: 'face', input } satisfies PoolTask) as Promise<FacePart>,
    ]);
    return combineParts(input, doc, face, Date.now() - started);
  }

  /** Loads the models on every thread now rather than during the first cases. */
  async warmUp(): Promise<number[]> {
    return Promise.all(Array.from({ length: this.threads }, () => this.pool.run({ task: 'warm_up' } satisfies PoolTask) as Promise<number>));
  }

  destroy(): Promise<void> {
    return this.pool.destroy();
  }
}
