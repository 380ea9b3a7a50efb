import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { BrowserRouter } from 'react-router';
import type { ApiClient } from '../api';
import { SessionProvider, useSession } from '../auth/SessionProvider';
import { ThemeProvider } from '../components';
import { ConnectionStatusProvider } from '../realtime/ConnectionStatus';
import { AppRoutes } from './AppRoutes';
import { createQueryClient } from './queryClient';

/** One trader's cached data must never show to the next one signing in on this browser. */
function ForgetDataOnSignOut({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) {
  const { state } = useSession();
  useEffect(() => {
    if (state.status === 'signed-out') queryClient.clear();
  }, [state.status, queryClient]);
  return children;
}

export interface AppProps {
  /** For tests: an API client of their own; the app uses the shared one. */
  client?: ApiClient;
}

/** The whole app: theme, server state, session, live status and the routes. */
export function App({ client }: AppProps) {
  const [queryClient] = useState(createQueryClient);
  return (
    <ThemeProvider>
      <QueryClientProvider client={queryClient}>
        <SessionProvider client={client}>
          <ForgetDataOnSignOut queryClient={queryClient}>
            <ConnectionStatusProvider>
              <BrowserRouter>
                <AppRoutes />
              </BrowserRouter>
            </ConnectionStatusProvider>
          </ForgetDataOnSignOut>
        </SessionProvider>
      </QueryClientProvider>
    </ThemeProvider>
  );
}
