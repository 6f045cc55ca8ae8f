import { ApiFailure, type Api } from './api.ts';
import type { JourneyState, PieceKind } from './types.ts';

type UploadStatus = 'waiting' | 'sending' | 'sent' | 'failed';

export interface UploadEntry {
  blob: Blob;
  status: UploadStatus;
  loaded: number;
  /** Error code of a failed upload (`network` when no answer came). */
  code?: string;
}

/**
 * Photos are sent in the background, one at a time, as soon as the person accepts them, so the
 * upload overlaps the next capture and a reload loses nothing already sent. A network failure
 * pauses the queue until `retry()`; a refusal (too small, unreadable…) marks that photo failed.
 */
export class UploadQueue {
  private readonly entries = new Map<PieceKind, UploadEntry>();
  private running = false;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly api: Api,
    private readonly onState: (state: JourneyState) => void,
  ) {}

  add(kind: PieceKind, blob: Blob): void {
    this.entries.set(kind, { blob, status: 'waiting', loaded: 0 });
    this.changed();
    void this.pump();
  }

  get(kind: PieceKind): UploadEntry | undefined {
    return this.entries.get(kind);
  }

  /** A photo is in hand for that kind: sent, on its way, or waiting for the connection to come back. */
  has(kind: PieceKind): boolean {
    const e = this.entries.get(kind);
    return Boolean(e && (e.status !== 'failed' || e.code === 'network'));
  }

  failed(): PieceKind[] {
    return [...this.entries].filter(([, e]) => e.status === 'failed').map(([k]) => k);
  }

  busy(): boolean {
    return [...this.entries.values()].some((e) => e.status === 'waiting' || e.status === 'sending');
  }

  progress(): { loaded: number; total: number } {
    let loaded = 0;
    let total = 0;
    for (const e of this.entries.values()) {
      total += e.blob.size;
      loaded += e.status === 'sent' ? e.blob.size : e.loaded;
    }
    return { loaded, total };
  }

  retry(): void {
    for (const e of this.entries.values()) if (e.status === 'failed' && e.code === 'network') e.status = 'waiting';
    this.changed();
    void this.pump();
  }

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const next = [...this.entries].find(([, e]) => e.status === 'waiting');
        if (!next) return;
        const [kind, entry] = next;
        entry.status = 'sending';
        entry.loaded = 0;
        this.changed();
        try {
          const state = await this.api.upload(kind, entry.blob, (loaded) => {
            entry.loaded = loaded;
            this.changed();
          });
          // A retake made while this one was sending replaces the entry: keep the newer one waiting.
          if (this.entries.get(kind) === entry) entry.status = 'sent';
          this.onState(state);
        } catch (err) {
          entry.status = 'failed';
          entry.code = err instanceof ApiFailure ? err.code : 'unknown';
          this.changed();
          if (entry.code === 'network') return;
        }
        this.changed();
      }
    } finally {
      this.running = false;
    }
  }
}
