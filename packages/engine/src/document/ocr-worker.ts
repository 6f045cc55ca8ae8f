import { fileURLToPath } from 'node:url';
import type { Worker, WorkerParams } from 'tesseract.js';
import { countModelLoad } from '../model-loads.ts';

/**
 * One tesseract.js worker per thread, created on first use and reused: creating one loads the
 * wasm core and the English model (seconds), reading a page then costs a fraction of that. The
 * model is tessdata_fast's English LSTM, kept in `models/tessdata-fast` (its README says where it
 * comes from and what it measured against the `4.0.0_best_int` model used before: a quarter less
 * CPU, the same fields); `cacheMethod: 'none'`: nothing is written or fetched.
 */
let worker: Promise<Worker> | null = null;

/** The folder holding `eng.traineddata.gz` (tesseract.js's `langPath`). */
export function englishModelPath(): string {
  return fileURLToPath(new URL('../../models/tessdata-fast', import.meta.url));
}

export function loadOcrWorker(): Promise<Worker> {
  worker ??= (async () => {
    countModelLoad('ocr');
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
  })();
  return worker;
}

/** Ends this thread's worker (tests and benchmarks; a pool thread keeps it for its lifetime). */
export async function closeOcrWorker(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await (await w).terminate();
}
