import { fileURLToPath } from 'node:url';
import type { RecognizeResult, Worker, WorkerParams } from 'tesseract.js';
import { countModelLoad } from '../model-loads.ts';

/**
 * The tesseract.js workers of this thread, created on first use (loading the wasm core and the
 * model takes seconds) and reused. OCR_WORKERS of them read a page's two halves and the re-read
 * lines at once. The model is tessdata_fast's English (models/tessdata-fast); nothing is fetched.
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
  // Straightened images carry no useful resolution tag: tell tesseract the scale. Sparse text suits
  // a card's scattered fields; no inverted second reading (a document's fields are dark on light).
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
