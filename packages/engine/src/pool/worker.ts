import type { CaseInput } from '../case-types.ts';
import { analyseDocumentPart, analyseFacePart, warmUpEngine } from '../analyse-case.ts';

/**
 * The task file of the checks pool: each worker thread imports it once, so the models every part
 * loads lazily (faces, MRZ classifier, opencv, tesseract) are loaded once per thread and reused by
 * every case that thread runs. One default export routes the tasks (piscina, under tsx, cannot
 * load a task file that has no default export).
 */
export type PoolTask = { task: 'document'; input: CaseInput } | { task: 'face'; input: CaseInput } | { task: 'warm_up' };

export default function run(t: PoolTask): Promise<unknown> {
  switch (t.task) {
    case 'document':
      return analyseDocumentPart(t.input);
    case 'face':
      return analyseFacePart(t.input);
    case 'warm_up':
      return warmUpEngine();
  }
}
