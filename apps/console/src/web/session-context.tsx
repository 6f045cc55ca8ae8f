import { queryOptions, useQuery } from '@tanstack/react-query';
import { createContext, useContext, useEffect, type ReactNode } from 'react';
import { ApiError } from './api/errors.ts';
import { fetchSession, leaveForSignIn, type ConsoleSession } from './api/session.ts';
import { ErrorNotice, Loading } from './components/status.tsx';

const Context = createContext<ConsoleSession | null>(null);

/** GET /auth/session, read at the page's start (main.tsx) and by the gate below. */
export const sessionQuery = queryOptions({ queryKey: ['session'], queryFn: fetchSession, staleTime: 5 * 60_000, retry: false });

/** Reads the operator's session; without one, the page goes to the sign-in (and comes back here). */
export function SessionGate({ children }: { children: ReactNode }) {
  const query = useQuery({ ...sessionQuery, refetchOnWindowFocus: true });
  // A 401 sends the page to the sign-in (or to the signed-out screen when the session was ended).
  const leaving = query.error instanceof ApiError && query.error.status === 401;
  useEffect(() => {
    if (query.isError) leaveForSignIn(query.error);
  }, [query.isError, query.error]);
  if (query.isPending || leaving) return <Loading />;
  if (query.isError) return <ErrorNotice error={query.error} onRetry={() => void query.refetch()} />;
  return <Context.Provider value={query.data}>{children}</Context.Provider>;
}

export function useSession(): ConsoleSession {
  const session = useContext(Context);
  if (!session) throw new Error('useSession outside SessionGate');
  return session;
}
