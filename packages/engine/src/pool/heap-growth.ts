import { setFlagsFromString } from 'node:v8';

/**
 * V8's `--heap-growing-percent` (100: a heap may grow to twice what survived the last full
 * collection). Pool threads keep large models alive and allocate fast; V8's own choice kept them in
 * near-constant full collections. Set by the checks pool before its threads start, at the cost of
 * some memory (bench/README.md gives the figures).
 */
const HEAP_GROWING_PERCENT = 100;

export function widenHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
