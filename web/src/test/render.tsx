import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router';
import { ApiClient, TokenStore } from '../api';
import { App } from '../app/App';
import { createQueryClient } from '../app/queryClient';
import { ThemeProvider } from '../components';
import { ConnectionStatusProvider } from '../realtime/ConnectionStatus';

/**
 * Renders the whole app at `path`, as a browser opening that address would. Pair it with
 * `new FakeAuthServer().install().signedInBefore()` for a signed-in trader.
 */
export function renderApp(path = '/') {
  window.history.replaceState(null, '', path);
  // A client per render, so no refresh in flight leaks between tests; it shares the storage.
  return render(<App client={new ApiClient(new TokenStore())} />);
}

/** Renders one component with the providers screens rely on (server state, theme, live status, router). */
export function renderWithProviders(ui: ReactElement, { path = '/' }: { path?: string } = {}) {
  const queryClient = createQueryClient();
  const view = render(
    <ThemeProvider>
      <QueryClientProvider client={queryClient}>
        <ConnectionStatusProvider>
          <MemoryRouter initialEntries={[path]}>{ui}</MemoryRouter>
        </ConnectionStatusProvider>
      </QueryClientProvider>
    </ThemeProvider>,
  );
  return { ...view, queryClient };
}
