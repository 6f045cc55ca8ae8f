import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ok } from '../../api/client.ts';
import { isCode } from '../../api/errors.ts';
import type { ReviewCase } from '../../api/types.ts';

/** How often the lock is extended while the operator works (the service's lock lasts thirty minutes). */
const EXTEND_EVERY_MS = 4 * 60_000;

type LockState = 'held' | 'other' | 'free' | 'lost';

/**
 * The review lock of a task, as the case screen sees it. Claiming takes it; while this operator
 * holds it the screen extends it every few minutes when the page is visible and the operator did
 * something since the last extension, and once when the page becomes visible again. A 409
 * lock_expired or lock_not_held from any call under the lock means it is gone: the screen says so
 * and offers to claim again.
 */
export function useTaskLock(taskId: string, data: ReviewCase | undefined, operatorId: string) {
  const queryClient = useQueryClient();
  const [lost, setLost] = useState(false);
  const active = useRef(false);
  const lock = data?.task.lock ?? null;
  const state: LockState = lost ? 'lost' : lock?.operator_id === operatorId ? 'held' : lock ? 'other' : 'free';

  const setLock = useCallback(
    (l: { operator_id: string; expires_at: string }) =>
      queryClient.setQueryData<ReviewCase>(['review-case', taskId], (old) => (old ? { ...old, task: { ...old.task, lock: { operator_id: l.operator_id, expires_at: l.expires_at } } } : old)),
    [queryClient, taskId],
  );

  /** Any error of a call under the lock goes through here. */
  const noteError = useCallback((error: unknown) => {
    if (isCode(error, 'lock_expired', 'lock_not_held')) setLost(true);
  }, []);

  const claim = useMutation({
    mutationFn: () => ok(api.POST('/v1/reviews/{task_id}/claim', { params: { path: { task_id: taskId } } })),
    onSuccess: (task) => {
      setLost(false);
      // The claim answers the task as it now is (its lock, and its decisions as this operator may see them).
      queryClient.setQueryData<ReviewCase>(['review-case', taskId], (old) => (old ? { ...old, task } : old));
      void queryClient.invalidateQueries({ queryKey: ['reviews'] });
      void queryClient.invalidateQueries({ queryKey: ['reviews-summary'] });
    },
  });

  const extend = useCallback(async () => {
    try {
      setLock(await ok(api.POST('/v1/reviews/{task_id}/lock', { params: { path: { task_id: taskId } } })));
    } catch (error) {
      noteError(error);
    }
  }, [taskId, setLock, noteError]);

  const held = state === 'held';
  useEffect(() => {
    if (!held) return;
    const mark = () => (active.current = true);
    const tick = () => {
      if (document.visibilityState === 'visible' && active.current) {
        active.current = false;
        void extend();
      }
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible') void extend();
    };
    const timer = setInterval(tick, EXTEND_EVERY_MS);
    document.addEventListener('pointerdown', mark);
    document.addEventListener('keydown', mark);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('pointerdown', mark);
      document.removeEventListener('keydown', mark);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [held, extend]);

  return { state, expiresAt: lock?.expires_at ?? null, claim, extend, noteError };
}
export type TaskLock = ReturnType<typeof useTaskLock>;
