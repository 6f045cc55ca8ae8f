import type { CaseInput } from '../case-types.ts';
import type { DecodedImage } from '../document/decode.ts';
import type { OcrPass } from '../document/printed-zone.ts';
import type { MrzReading } from '../types.ts';
import { threadId } from 'node:worker_threads';
import { workerData } from 'piscina';
import { modelLoads } from '../model-loads.ts';
import { readDocumentPart, readFaces, readPrintedOcr, readSecondOcrPasses, warmUpEngine } from '../analyse-case.ts';
import { readFrameChanges, readSequenceFaces } from '../faces/sequence-read.ts';
import { lowerThreadPriority } from './thread-priority.ts';

/** What the pool gives each of its threads (ChecksPoolOptions). */
export interface PoolThreadData {
  niceness: number;
}

// First, before any model loads: the threads tesseract.js starts from this one inherit the value.
lowerThreadPriority((workerData as PoolThreadData | undefined)?.niceness ?? 0);

/**
 * The task file of the checks pool: each worker thread imports it once, so the models every task
 * loads lazily (faces, MRZ classifier, opencv, tesseract) are loaded once per thread and reused by
 * every case that thread runs. One default export routes the tasks (piscina, under tsx, cannot
 * load a task file that has no default export). Tasks take only the bytes they read: a face task
 * one image, not the whole case.
 */
export type PoolTask =
  | { task: 'document'; input: CaseInput }
  | { task: 'printed_zone'; input: CaseInput }
  | { task: 'printed_zone_second'; straightened: DecodedImage; first: OcrPass; mrz: MrzReading }
  | { task: 'faces'; image: Uint8Array; maxSide?: number; medium?: boolean }
  | { task: 'sequence_faces'; frames: { index: number; image: Uint8Array }[] }
  | { task: 'sequence_changes'; frames: Uint8Array[] }
  | { task: 'warm_up'; part?: 'all' | 'images' | 'printed_zone' }
  | { task: 'model_loads' };

export default function run(t: PoolTask): Promise<unknown> {
  switch (t.task) {
    case 'document':
      return readDocumentPart(t.input);
    case 'printed_zone':
      return readPrintedOcr(t.input);
    case 'printed_zone_second':
      return readSecondOcrPasses(t.straightened, t.first, t.mrz);
    case 'faces':
      return readFaces(t.image, t.maxSide, t.medium);
    case 'sequence_faces':
      return readSequenceFaces(t.frames);
    case 'sequence_changes':
      return readFrameChanges(t.frames);
    case 'warm_up':
      return warmUpEngine(t.part);
    case 'model_loads':
      return Promise.resolve({ threadId, loads: modelLoads() });
  }
}
