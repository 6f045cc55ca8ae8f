import { ApiError } from '../../http/api-error.ts';

const DAY = 86_400_000;
const DEFAULT_WINDOW_DAYS = 30;
const MAX_WINDOW_DAYS = 366;

/** The start of an indicators' period (`since`): thirty days ago by default, never in the future nor beyond 366 days. */
export function windowStart(since: string | undefined, now: Date): Date {
  const start = since ? new Date(since) : new Date(now.getTime() - DEFAULT_WINDOW_DAYS * DAY);
  if (start > now) throw new ApiError('parameter_invalid', 'The query parameter since is in the future.', 'since');
  if (now.getTime() - start.getTime() > MAX_WINDOW_DAYS * DAY) {
    throw new ApiError('parameter_invalid', `The query parameter since must be within the last ${MAX_WINDOW_DAYS} days.`, 'since');
  }
  return start;
}
