import { fileURLToPath } from 'node:url';
import type { RecognizeResult, Worker, WorkerParams } from 'tesseract.js';
import { countModelLoad } from '../model-loads.ts';

/**
 * The tesseract.js workers of this thread, created on first use and reused: creating one loads the
 * wasm core and the English model (seconds), reading a page then costs a fraction of that. Each
 * worker is a thread of its own; there are OCR_WORKERS of them so that the two halves of a page
 * (page-cut.ts) and the lines read again are read at once, queued on tesseract.js's scheduler,
 * which hands each job to the first idle worker. The model is tessdata_fast's English LSTM, kept
 * in `models/tessdata-fast` (its README says where it comes from and what it measured against the
 * `4.0.0_best_int` model used before: a quarter less CPU, the same fields); `cacheMethod: 'none'`:
 * nothing is written or fetched.
 */
export const OCR_WORKERS = 2;

export interface OcrReaders {
  /** Reads one image (a PGM file's bytes) on the first idle worker. */
  recognize(image: Buffer, output: { text: true; tsv: boolean }): Promise<RecognizeResult>;
}

let readers: Promise<{ readers: OcrReaders; workers: Worker[] }> | null = null;

/** The folder holding `eng.traineddata.gz` (tesseract.js's `langPath`). */
export function englishModelPath(): string {
  return fileURLToPath(new URL('../../models/tessdata-fast', import.meta.url));
}

async function createOcrWorker(): Promise<Worker> {
  const { createWorker, OEM, PSM } = await import('tesseract.js');
  const created = await createWorker('eng', OEM.LSTM_ONLY, { langPath: englishModelPath(), cacheMethod: 'none', gzip: true });
  // Straightened images carry no useful resolution tag: tell tesseract the scale. Sparse text
  // (page segmentation 11) suits a card's scattered labels and values: measured on 10 generated
  // documents, 47 of 50 decisive fields found against 42 with automatic layout (3) and 38 with
  // one block (6), and faster. Tesseract's own diagnostics go to /dev/null. No second reading of
  // each doubtful line inverted (white print on dark, `tessedit_do_invert`): a document's fields
  // are dark on light, and the doubtful lines are mostly background patterns and the portrait.
  // Measured on the document bench's 34 documents, alternating with and without in one run: the
  // first pass's tesseract CPU 17% lower (649 against 784 ms per document), the same fields found.
  await created.setParameters({ user_defined_dpi: '300', tessedit_pageseg_mode: PSM.SPARSE_TEXT, tessedit_do_invert: '0', debug_file: '/dev/null' } as Partial<WorkerParams>);
  return created;
}

export async function loadOcrReaders(): Promise<OcrReaders> {
  readers ??= (async () => {
    // Counted once: the thread's readers are made once, whatever their number.
    countModelLoad('ocr');
    const { createScheduler } = await import('tesseract.js');
    const workers = await Promise.all(Array.from({ length: OCR_WORKERS }, createOcrWorker));
    const scheduler = createScheduler();
    for (const w of workers) scheduler.addWorker(w);
    return { workers, readers: { recognize: (image, output) => scheduler.addJob('recognize', image, {}, output) } };
  })();
  return (await readers).readers;
}

/** Ends this thread's workers (tests and benchmarks; a pool thread keeps them for its lifetime). */
export async function closeOcrReaders(): Promise<void> {
  const r = readers;
  readers = null;
  // Each worker is ended here: the scheduler's own `terminate` does not wait for them.
  if (r) await Promise.all((await r).workers.map((w) => w.terminate()));
}
