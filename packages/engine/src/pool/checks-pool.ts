import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { challengeImages, PORTRAIT_MAX_SIDE } from '../analyse-case.ts';
import { combineParts, comparedPortrait, finishDocumentPart, finishFacePart, wantsFaces, type FaceReadings } from '../case-finish.ts';
import type { CaseAnalysis, CaseInput, DocumentReading, FacesFound, PrintedOcr, TaskTiming } from '../case-types.ts';
import { needsSecondPass, type OcrPass } from '../document/printed-zone.ts';
import { framesToRead, sequenceReadings, type FrameThumbs, type SequenceFacesRead } from '../faces/sequence-read.ts';
import type { SequenceFrameReading } from '../faces/sequence.ts';
import { disableOnnxTelemetry } from '../onnx/telemetry.ts';
import { widenHeapGrowth } from './heap-growth.ts';
import type { PoolTask, PoolThreadData } from './worker.ts';

/** One thread's model loads, by model (see model-loads.ts). */
export interface ThreadLoads {
  threadId: number;
  loads: Record<string, number>;
}

export interface ChecksPoolOptions {
  /** Worker threads (default: the machine's cores, at most 4). Each loads every model once. */
  threads?: number;
  /** Cases waiting beyond the threads' capacity before `analyse` rejects (default unbounded). */
  maxQueue?: number;
  /** Threads of the printed-zone OCR (default: half the threads, at least 1). */
  ocrThreads?: number;
  /**
   * The threads' nice value (0 to 19; default 0, the process's own): above 0 they yield the CPU to
   * the process's other threads, the API's event loop first, whenever both want it (Linux, where
   * the nice value is per thread; elsewhere ignored). A thread cannot lower it again.
   */
  niceness?: number;
}

/**
 * A pool of worker threads running the engine, off the API's and worker's event loops. A case's
 * independent tasks are queued longest first so the threads finish together. The OCR has a pool of
 * its own: tesseract.js recognises in threads of its own, and a pool thread waiting on it would
 * hold a slot the faces need.
 */
export class ChecksPool {
  private readonly pool: Piscina;
  private readonly ocrPool: Piscina;
  readonly threads: number;
  readonly ocrThreads: number;

  constructor(options: ChecksPoolOptions = {}) {
    // Before any thread starts: the threads' onnxruntime reads the process's environment.
    disableOnnxTelemetry();
    // Full collections at twice the live heap rather than V8's 1.4 times (heap-growth.ts).
    widenHeapGrowth();
    this.threads = options.threads ?? Math.max(1, Math.min(4, availableParallelism()));
    this.ocrThreads = options.ocrThreads ?? Math.max(1, Math.round(this.threads / 2));
    const settings = {
      filename: new URL('./worker.ts', import.meta.url).href,
      // Threads start with the first case (or warmUp): a process that never analyses pays nothing.
      minThreads: 0,
      // A thread runs one task at a time: the models are synchronous CPU work on the wasm backend.
      concurrentTasksPerWorker: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
      maxQueue: options.maxQueue ?? Number.POSITIVE_INFINITY,
      // Read by each thread as it starts (worker.ts), before it loads anything.
      workerData: { niceness: options.niceness ?? 0 } satisfies PoolThreadData,
    };
    this.pool = new Piscina({ ...settings, maxThreads: this.threads });
    this.ocrPool = new Piscina({ ...settings, maxThreads: this.ocrThreads });
  }

  async analyse(input: CaseInput): Promise<CaseAnalysis> {
    const started = Date.now();
    const tasks: Record<string, TaskTiming> = {};
    const run = <T>(name: string, t: PoolTask): Promise<T> =>
      ((t.task.startsWith('printed_zone') ? this.ocrPool : this.pool).run(t) as Promise<T>).then((r) => {
        const timing = (r as { timing?: TaskTiming } | null)?.timing;
        if (timing) tasks[name] = timing;
        return r;
      });
    const { document_front, document_back, selfie } = input.pieces;
    // Queued in the order of their measured cost, longest first (piscina runs its queue in order).
    const reading = run<DocumentReading | null>('document', { task: 'document', input: { ...input, pieces: { document_front, document_back } } });
    const ocr = run<PrintedOcr | null>('printed_zone', { task: 'printed_zone', input: { ...input, pieces: { document_front } } });
    const faces = wantsFaces(input);
    const portrait = faces ? run<FacesFound>('face_portrait', { task: 'faces', image: comparedPortrait(input)!, maxSide: PORTRAIT_MAX_SIDE }) : null;
    const selfieFaces = faces ? run<FacesFound>('face_selfie', { task: 'faces', image: selfie!, medium: true }) : null;
    // Challenge images are read beside the selfie rather than after it; they are judged only if it has one usable face.
    const sequence = input.sequence && faces ? input.sequence : null;
    const challenges = faces && !sequence ? challengeImages(input).map(([c, image]) => run<FacesFound>(`face_${c}`, { task: 'faces', image }).then((f) => [c, f.faces] as const)) : [];
    const sequenceFrames = sequence ? this.readSequence(sequence, run) : Promise.resolve(null);

    const documentSide = Promise.all([reading, ocr]).then(async ([r, o]) => {
      let passes: OcrPass[] | null = o?.passes ?? null;
      // The second OCR pass needs the zone's reading: asked for only when the first pass misses a decisive field.
      if (o && passes && r?.mrz && needsSecondPass(passes[0], r.mrz)) {
        const second = await run<{ passes: OcrPass[]; timing: TaskTiming }>('printed_zone_second', { task: 'printed_zone_second', straightened: o.straightened, first: passes[0], mrz: r.mrz });
        passes = [...passes, ...second.passes];
      }
      return finishDocumentPart(input, r, passes, Date.now() - started);
    });
    const faceSide = Promise.all([portrait, selfieFaces, Promise.all(challenges), sequenceFrames]).then(([p, s, c, q]) => {
      const readings: FaceReadings | null = p && s ? { portrait: p.faces, selfie: s.faces, selfieMedium: s.medium ?? null, challenges: Object.fromEntries(c), sequence: q } : null;
      return finishFacePart(input, readings, Date.now() - started);
    });
    const [doc, face] = await Promise.all([documentSide, faceSide]);
    return combineParts(input, doc, face, Date.now() - started, tasks);
  }

  /**
   * The live sequence's frames: thumbnails of all (one task), the faces of a sample split in two
   * tasks so two threads share them.
   */
  private async readSequence(sequence: NonNullable<CaseInput['sequence']>, run: <T>(name: string, t: PoolTask) => Promise<T>): Promise<SequenceFrameReading[]> {
    const picked = framesToRead(sequence.times);
    const halves = [picked.filter((_, k) => k % 2 === 0), picked.filter((_, k) => k % 2 === 1)].filter((h) => h.length > 0);
    const [thumbs, ...parts] = await Promise.all([
      run<FrameThumbs>('sequence_changes', { task: 'sequence_changes', frames: sequence.frames }),
      ...halves.map((h, n) => run<Omit<SequenceFacesRead, 'timing'>>(`sequence_faces_${n}`, { task: 'sequence_faces', frames: h.map((index) => ({ index, image: sequence.frames[index]! })) })),
    ]);
    return sequenceReadings(sequence.times, thumbs, parts);
  }

  /** Loads the models on every thread now rather than during the first cases. */
  async warmUp(): Promise<number[]> {
    const warm = (pool: Piscina, n: number, part: 'images' | 'printed_zone') =>
      Array.from({ length: n }, () => pool.run({ task: 'warm_up', part } satisfies PoolTask) as Promise<number>);
    return Promise.all([...warm(this.pool, this.threads, 'images'), ...warm(this.ocrPool, this.ocrThreads, 'printed_zone')]);
  }

  /**
   * How many times a thread of each pool has loaded each model (one thread of each: exact for
   * pools of one thread, which is what the test of "once per thread, not per case" uses).
   */
  async modelLoads(): Promise<{ images: ThreadLoads; printedZone: ThreadLoads }> {
    const [images, printedZone] = await Promise.all([this.pool.run({ task: 'model_loads' } satisfies PoolTask), this.ocrPool.run({ task: 'model_loads' } satisfies PoolTask)]);
    return { images: images as ThreadLoads, printedZone: printedZone as ThreadLoads };
  }

  async destroy(): Promise<void> {
    await Promise.all([this.pool.destroy(), this.ocrPool.destroy()]);
  }
}
