import type { Price } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import { tokenStore } from '../../api';
import { useConnectionStatus, useSetConnectionStatus } from '../../realtime/ConnectionStatus';
import type { PriceMap } from './livePrices';
import { LiveTrading } from './liveTrading';
import { applyTradingMessage, fetchCurrentPrices } from './queries';
import { type SocketLike, tradingSocketUrl } from './tradingSocket';

/** The latest margin call of this session (DESIGN §5), until the trader dismisses it. */
export interface MarginCallNotice {
  message: string;
  marginLevel: number;
  /** Increases with every margin call, so a new one shows again after a dismissal. */
  serial: number;
}

interface LiveTradingContextValue {
  live: LiveTrading;
  marginCall: MarginCallNotice | null;
  dismissMarginCall(): void;
}

const LiveTradingContext = createContext<LiveTradingContextValue | null>(null);

export interface LiveTradingProviderProps {
  children: ReactNode;
  /** For tests: a fake socket factory; the app uses the browser's WebSocket. */
  createSocket?: (url: string) => SocketLike;
}

/**
 * Runs the trading socket and the price poll for the signed-in app (spec §4), sets the
 * header's Live Updates / Connecting... indicator, and applies live account and position
 * figures to the cached screens. Mount it once, inside the query client and the
 * connection status providers.
 */
export function LiveTradingProvider({ children, createSocket }: LiveTradingProviderProps) {
  const queryClient = useQueryClient();
  const setStatus = useSetConnectionStatus();
  const [marginCall, setMarginCall] = useState<MarginCallNotice | null>(null);
  const [live] = useState(
    () =>
      new LiveTrading({
        socketUrl: tradingSocketUrl(),
        token: () => tokenStore.read().access,
        fetchPrices: fetchCurrentPrices,
        createSocket,
      }),
  );

  useEffect(() => {
    const unsubscribe = live.listen({
      onConnectedChange: (connected) => setStatus(connected ? 'live' : 'connecting'),
      onMessage: (message) => {
        if (message.type === 'margin_call') {
          setMarginCall((prev) => ({
            message: message.data.message,
            marginLevel: message.data.margin_level,
            serial: (prev?.serial ?? 0) + 1,
          }));
        }
        applyTradingMessage(queryClient, message, () => live.socket.send('get_positions_update', {}));
      },
    });
    live.start();
    const stopTokens = tokenStore.subscribe((change) => {
      if (change.access) live.socket.reauthenticate();
    });
    const onOnline = () => live.socket.retryNow();
    window.addEventListener('online', onOnline);
    return () => {
      window.removeEventListener('online', onOnline);
      stopTokens();
      live.stop();
      unsubscribe();
      setStatus('connecting');
    };
  }, [live, queryClient, setStatus]);

  const value: LiveTradingContextValue = { live, marginCall, dismissMarginCall: () => setMarginCall(null) };
  return <LiveTradingContext.Provider value={value}>{children}</LiveTradingContext.Provider>;
}

function useLiveContext(): LiveTradingContextValue {
  const value = useContext(LiveTradingContext);
  if (!value) throw new Error('Live trading hooks must be used inside <LiveTradingProvider>');
  return value;
}

/** Every pair's latest price (socket, or the 5 s poll while it is down). */
export function useLivePrices(): PriceMap {
  const { live } = useLiveContext();
  return useSyncExternalStore(live.prices.subscribe, live.prices.snapshot);
}

/** One pair's latest price. */
export function useLivePrice(symbol: string): Price | undefined {
  return useLivePrices()[symbol.toUpperCase()];
}

/** True while the trading socket is connected (the header's Live Updates). */
export function useLiveConnected(): boolean {
  return useConnectionStatus() === 'live';
}

/** The latest margin call and a way to dismiss it. */
export function useMarginCall(): { notice: MarginCallNotice | null; dismiss(): void } {
  const { marginCall, dismissMarginCall } = useLiveContext();
  return { notice: marginCall, dismiss: dismissMarginCall };
}
