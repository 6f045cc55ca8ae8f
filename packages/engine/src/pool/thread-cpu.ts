import { readFileSync } from 'node:fs';

/**
 * CPU time of the calling thread (ms, from /proc/thread-self/stat; null off Linux): Node 20 has no
 * per-thread clock. Work handed to another thread (tesseract.js) is not counted.
 */
function threadCpuMs(): number | null {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Runs `work` and returns its result with the wall and thread CPU time it took. */
export async function timedTask<T>(work: () => Promise<T>): Promise<{ result: T; timing: { ms: number; cpuMs: number | null } }> {
  const started = Date.now();
  const cpu = threadCpuMs();
  const result = await work();
  const after = threadCpuMs();
  return { result, timing: { ms: Date.now() - started, cpuMs: cpu === null || after === null ? null : after - cpu } };
}
