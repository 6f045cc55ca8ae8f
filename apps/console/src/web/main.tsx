import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ActionOutcomeProvider } from './action-outcome.tsx';
import { I18nProvider } from './i18n/index.tsx';
import { queryClient } from './query-client.ts';
import { router } from './router.tsx';
import { sessionQuery } from './session-context.tsx';

// The session is read at once, beside the screen's own calls that the route loaders start: the
// console server checks the session on each of them anyway, and a 401 still leads to the sign-in.
// Not on the screens shown without a session (signed out, invitation), where it would be a 401.
if (!/^\/(signed-out|invitation)(\/|$)/.test(location.pathname)) void queryClient.prefetchQuery(sessionQuery);
// The route's loaders (its calls, its chunk) start now too, not after the first render has run.
void router.load();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <I18nProvider>
        <ActionOutcomeProvider>
          <RouterProvider router={router} />
        </ActionOutcomeProvider>
      </I18nProvider>
    </QueryClientProvider>
  </StrictMode>,
);
