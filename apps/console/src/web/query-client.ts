import { QueryClient } from '@tanstack/react-query';
import { ApiError, ReauthNavigation } from './api/errors.ts';

/**
 * The one query cache of the app, shared by the screens (useQuery) and the route loaders, which
 * start a screen's calls at navigation (prefetchQuery) instead of after the screen has drawn.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A 4xx is an answer, not a glitch; only network failures and 5xx are tried again, once.
      retry: (count, error) => count < 1 && !(error instanceof ReauthNavigation) && !(error instanceof ApiError && error.status < 500),
    },
    mutations: { retry: false },
  },
});
