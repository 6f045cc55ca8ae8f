import { useQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api, ok } from './client.ts';

/**
 * Who did it, in words: the journal's actors (`op:<id>`, `key:<id>`, `system`, `person`: the journey) and a decision's
 * `decided_by` name operators by id; the directory (GET /v1/operators/directory, open to every
 * active operator, names only) turns them into names. Read once per few minutes and shared by
 * every screen. An id the directory does not know (a revoked operator) stays an id.
 */
export type ActorName = { kind: 'operator'; name: string } | { kind: 'key' | 'system' | 'person' | 'unknown'; name: string };

export function useActorName(): (actor: string) => ActorName {
  const directory = useQuery({
    queryKey: ['operator-directory'],
    queryFn: () => ok(api.GET('/v1/operators/directory')),
    staleTime: 5 * 60_000,
    refetchOnWindowFocus: false,
  });
  const names = directory.data?.data;
  return useCallback(
    (actor: string): ActorName => {
      const id = actor.startsWith('op:') ? actor.slice(3) : actor;
      if (id.startsWith('op_')) {
        const found = names?.find((o) => o.id === id);
        return found ? { kind: 'operator', name: found.name } : { kind: 'unknown', name: id };
      }
      if (actor.startsWith('key:')) return { kind: 'key', name: actor.slice(4) };
      if (actor === 'system') return { kind: 'system', name: actor };
      if (actor === 'person') return { kind: 'person', name: actor };
      return { kind: 'unknown', name: actor };
    },
    [names],
  );
}
