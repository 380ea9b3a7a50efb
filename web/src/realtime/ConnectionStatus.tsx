import { createContext, type ReactNode, useContext, useMemo, useState } from 'react';
import { Badge } from '../components';

/** The trading socket's state as the header shows it (spec §2: Live Updates or Connecting...). */
export type LiveConnectionState = 'connecting' | 'live';

interface ConnectionStatusValue {
  state: LiveConnectionState;
  setState(state: LiveConnectionState): void;
}

const ConnectionStatusContext = createContext<ConnectionStatusValue | null>(null);

/**
 * Holds the live connection state for the whole signed-in app. The trading socket sets it
 * (`useSetConnectionStatus()('live')` on connection_established, `'connecting'` on close);
 * the header indicator and the dashboard badge read it.
 */
export function ConnectionStatusProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<LiveConnectionState>('connecting');
  const value = useMemo(() => ({ state, setState }), [state]);
  return <ConnectionStatusContext.Provider value={value}>{children}</ConnectionStatusContext.Provider>;
}

function useConnectionContext(): ConnectionStatusValue {
  const value = useContext(ConnectionStatusContext);
  if (!value) throw new Error('Connection status hooks must be used inside <ConnectionStatusProvider>');
  return value;
}

/** The live connection state: 'live' once the trading socket is established, else 'connecting'. */
export function useConnectionStatus(): LiveConnectionState {
  return useConnectionContext().state;
}

/** The setter for the trading socket. Stable across renders. */
export function useSetConnectionStatus(): (state: LiveConnectionState) => void {
  return useConnectionContext().setState;
}

/** The header's indicator: Live Updates (green, pulsing) or Connecting... */
export function ConnectionIndicator() {
  const state = useConnectionStatus();
  return (
    <span role="status" aria-live="polite" className="connection-indicator">
      {state === 'live' ? (
        <Badge tone="profit" dot pulse>
          Live Updates
        </Badge>
      ) : (
        <Badge tone="warning" dot>
          Connecting...
        </Badge>
      )}
    </span>
  );
}
