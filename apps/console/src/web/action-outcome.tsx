import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { fetchActionOutcome } from './api/session.ts';

/**
 * After a re-authentication the console server replays the action the operator asked for and
 * sends the browser back with `?action=<id>`. The id is taken out of the address once, when the
 * app starts (so a reload does not ask again; the server answers it once only anyway), and its
 * outcome read from /auth/actions/<id>.
 */
const startActionId: string | null = (() => {
  const url = new URL(location.href);
  const id = url.searchParams.get('action');
  if (!id) return null;
  url.searchParams.delete('action');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  return /^[A-Za-z0-9_-]{1,128}$/.test(id) ? id : null;
})();

export interface ActionOutcome {
  /** null: the server no longer has it (already read, or expired). */
  result: { status: number; body: unknown } | null;
  /** The path the action was asked from, to show it where it belongs. */
  path: string;
}

const Context = createContext<ActionOutcome | undefined>(undefined);

export function ActionOutcomeProvider({ children }: { children: ReactNode }) {
  const query = useQuery({
    queryKey: ['action-outcome', startActionId],
    queryFn: () => fetchActionOutcome(startActionId!),
    enabled: startActionId !== null,
    staleTime: Infinity,
    gcTime: Infinity,
    retry: false,
  });
  const value = query.isSuccess ? { result: query.data, path: location.pathname } : undefined;
  return <Context.Provider value={value}>{children}</Context.Provider>;
}

/** The replayed action's outcome, when the app was opened on the way back from a re-authentication. */
export function useActionOutcome(): ActionOutcome | undefined {
  return useContext(Context);
}

