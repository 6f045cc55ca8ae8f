import { Histogram } from 'prom-client';
import { registry } from './registry.ts';

const SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];

/**
 * Wall time of each engine task on its thread (packages/engine's pool: `document`,
 * `printed_zone`, `printed_zone_second`, `face_portrait`, `face_selfie`, `face_<challenge>`),
 * from the timings the engine returns with each analysis.
 */
const checkTaskDuration = new Histogram({
  name: 'idv_check_task_duration_seconds',
  help: 'Automated checks: wall time of each engine task, by task',
  labelNames: ['task'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [registry],
});

/** One check job from claim to commit (the engine, duplicates, policy and the writes), by outcome. */
export const checkJobDuration = new Histogram({
  name: 'idv_check_job_duration_seconds',
  help: 'Automated checks: duration of a check job from its claim to its end, by outcome',
  labelNames: ['outcome'] as const,
  buckets: SECONDS_BUCKETS,
  registers: [registry],
});

/** Records the engine's per-task timings of one analysis (milliseconds, as the engine gives them). */
export function observeCheckTasks(tasks: Record<string, { ms: number }> | undefined): void {
  if (!tasks) return;
  for (const [task, timing] of Object.entries(tasks)) checkTaskDuration.observe({ task }, timing.ms / 1000);
}
