import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets a heap grow past what survived the last full collection before it starts the
 * next one: `--heap-growing-percent` (100: twice the live size), a process-wide flag.
 *
 * Why: V8 picks that growth itself, from how fast its collector runs against how fast the thread
 * allocates, counting only the pauses on the thread itself, not the marking its helper threads do
 * beside it. A pool thread keeps about 60 MB of models and code alive and allocates image buffers
 * fast; V8 let its heap grow only about 1.4 times, so a full collection (marking the 60 MB again)
 * was under way almost all the time: 199 full collections in one run of the pipeline bench (its
 * warm-up and 33 cases), and V8's helper threads took about a fifth of the process's CPU. At twice
 * the live size: 36 to 44 full collections, and the CPU per case 1,104 / 1,135 -> 921 / 915 ms
 * with 1 / 2 cases in flight (bench/README.md). The cost is memory: a thread's heap may grow to
 * twice its live size (the process's peak RSS measured 25 MB higher), which a service with a core
 * per thread can spare; the same growth then applies to the API's thread too, whose live heap is
 * smaller.
 *
 * Set by the checks pool before its threads start (flags are read at each collection, so the
 * threads and the main thread all use it); a process that never starts a pool keeps V8's choice.
 */
const HEAP_GROWING_PERCENT = 100;

export function widenHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
