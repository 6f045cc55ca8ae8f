import { Piscina } from 'piscina';
import type { ViewJob, ViewResult } from './view-task.ts';

export interface ImageViewsOptions {
  /** Threads working images (default 1: a view takes tens of milliseconds; the API's CPU is for requests). */
  threads?: number;
  /** Views waiting for a thread beyond which a request is refused (default 32). */
  maxQueue?: number;
}

/**
 * Thumbnails and portraits cut from the pieces, made in worker threads (view-task.ts), never on
 * the API's event loop: decoding a 40-megapixel photo would otherwise hold every other request.
 * Threads start with the first view and stop after a minute without one.
 */
export class ImageViews {
  private readonly pool: Piscina;

  constructor(options: ImageViewsOptions = {}) {
    this.pool = new Piscina({
      filename: new URL('./view-task.ts', import.meta.url).href,
      minThreads: 0,
      maxThreads: options.threads ?? 1,
      idleTimeout: 60_000,
      maxQueue: options.maxQueue ?? 32,
    });
  }

  /** The view's JPEG; throws `ImageViewsBusy` when too many wait already. */
  async make(job: ViewJob): Promise<ViewResult> {
    if (this.pool.queueSize >= this.pool.options.maxQueue) throw new ImageViewsBusy();
    // Copied to the thread (a few megabytes): transferring could detach a buffer shared with others.
    return (await this.pool.run(job)) as ViewResult;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

export class ImageViewsBusy extends Error {
  constructor() {
    super('image views busy');
  }
}
