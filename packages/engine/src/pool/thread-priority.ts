import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Gives the calling thread the nice value `niceness` (0 to 19). On Linux the nice value belongs to
 * each thread (setpriority(2) with a thread's id), and threads started from this one inherit it;
 * the thread's id is the last part of /proc/thread-self (`<pid>/task/<tid>`). Elsewhere, or when
 * refused, nothing changes: a lower priority is a preference, never a reason not to run.
 * Returns the thread id it applied to, or null.
 */
export function lowerThreadPriority(niceness: number): number | null {
  if (niceness <= 0 || process.platform !== 'linux') return null;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    // The main thread's id is the process's: setting it would lower the whole process's API too.
    if (!Number.isInteger(tid) || tid === process.pid) return null;
    setPriority(tid, Math.min(19, niceness));
    return tid;
  } catch {
    return null;
  }
}
