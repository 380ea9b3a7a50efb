import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from 'react';
import { Badge, Button } from '../components';

/**
 * The trading socket's state as the header shows it (docs/screens.md#header): Live Updates,
 * Connecting..., or Offline once the reconnect attempts are spent.
 */
export type LiveConnectionState = 'connecting' | 'live' | 'offline';

interface ConnectionStatusValue {
  state: LiveConnectionState;
  setState(state: LiveConnectionState): void;
  /** Starts a new round of connection attempts (the Offline state's Retry). */
  retry(): void;
  setRetry(retry: (() => void) | null): void;
}

const ConnectionStatusContext = createContext<ConnectionStatusValue | null>(null);

/**
 * Holds the live connection state for the whole signed-in app. The trading socket sets it
 * (`useSetConnectionStatus()('live')` on connection_established, `'connecting'` on close,
 * `'offline'` when it gives up) and hands in its retry; the header indicator and the
 * dashboard badge read it.
 */
export function ConnectionStatusProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<LiveConnectionState>('connecting');
  const retryRef = useRef<(() => void) | null>(null);
  const retry = useCallback(() => retryRef.current?.(), []);
  const setRetry = useCallback((fn: (() => void) | null) => {
    retryRef.current = fn;
  }, []);
  const value = useMemo(() => ({ state, setState, retry, setRetry }), [state, retry, setRetry]);
  return <ConnectionStatusContext.Provider value={value}>{children}</ConnectionStatusContext.Provider>;
}

function useConnectionContext(): ConnectionStatusValue {
  const value = useContext(ConnectionStatusContext);
  if (!value) throw new Error('Connection status hooks must be used inside <ConnectionStatusProvider>');
  return value;
}

/** The live connection state: 'live' once the trading socket is established, 'offline' once it gave up, else 'connecting'. */
export function useConnectionStatus(): LiveConnectionState {
  return useConnectionContext().state;
}

/** The setter for the trading socket. Stable across renders. */
export function useSetConnectionStatus(): (state: LiveConnectionState) => void {
  return useConnectionContext().setState;
}

/** For the trading socket's owner: registers what Retry does (null when it goes away). Stable across renders. */
export function useSetConnectionRetry(): (retry: (() => void) | null) => void {
  return useConnectionContext().setRetry;
}

/** The header's indicator: Live Updates (green, pulsing), Connecting..., or Offline with a Retry button. */
export function ConnectionIndicator() {
  const { state, retry } = useConnectionContext();
  return (
    <>
      <span role="status" aria-live="polite" className="connection-indicator">
        {state === 'live' ? (
          <Badge tone="profit" dot pulse>
            Live Updates
          </Badge>
        ) : state === 'offline' ? (
          <Badge tone="loss" dot>
            Offline
          </Badge>
        ) : (
          <Badge tone="warning" dot>
            Connecting...
          </Badge>
        )}
      </span>
      {state === 'offline' && (
        <Button size="sm" variant="secondary" onClick={retry}>
          Retry
        </Button>
      )}
    </>
  );
}
