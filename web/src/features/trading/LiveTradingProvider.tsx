import type { PlatformDataDto, Price } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { accountSelection, tokenStore } from '../../api';
import { useNotices } from '../../notices/NoticeProvider';
import { useConnectionStatus, useSetConnectionRetry, useSetConnectionStatus } from '../../realtime/ConnectionStatus';
import { useAccountSelection } from '../accounts/AccountSelectionProvider';
import { digitsLookup } from './format';
import type { PriceMap } from './livePrices';
import { LiveTrading } from './liveTrading';
import { applyTradingMessage, fetchCurrentPrices, tradingKeys } from './queries';
import { tradingMessageNotice } from './tradeNotices';
import { type SocketLike, tradingSocketUrl } from './tradingSocket';

/** The latest margin call of this session (docs/api.md#trading-socket), until the trader dismisses it. */
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
  /** Counts the mounted margin call banners: while one shows, a margin call needs no notice too. */
  marginCallBanners: { current: number };
}

const LiveTradingContext = createContext<LiveTradingContextValue | null>(null);

export interface LiveTradingProviderProps {
  children: ReactNode;
  /** For tests: a fake socket factory; the app uses the browser's WebSocket. */
  createSocket?: (url: string) => SocketLike;
  /** For tests: the reconnect jitter's random numbers; the app uses Math.random. */
  random?: () => number;
}

/**
 * Runs the trading socket and the price poll for the signed-in app (docs/screens.md#live-data-and-polling), sets the
 * header's Live Updates / Connecting... / Offline indicator and its Retry, applies live
 * account and position figures to the cached screens, and turns order events and margin
 * calls into notices (docs/screens.md#notices). Mount it once, inside the query client, the
 * connection status and the notice providers.
 */
export function LiveTradingProvider({ children, createSocket, random }: LiveTradingProviderProps) {
  const queryClient = useQueryClient();
  const setStatus = useSetConnectionStatus();
  const setRetry = useSetConnectionRetry();
  const notices = useNotices();
  const marginCallBanners = useRef(0);
  // The last status and phase seen of each evaluation attempt: a notice on a pass or a failure, once.
  const attemptStatuses = useRef(new Map<number, string>());
  const [marginCall, setMarginCall] = useState<MarginCallNotice | null>(null);
  const [live] = useState(
    () =>
      new LiveTrading({
        socketUrl: tradingSocketUrl(),
        token: () => tokenStore.read().access,
        account: () => accountSelection.current(),
        fetchPrices: fetchCurrentPrices,
        createSocket,
        random,
      }),
  );

  useEffect(() => {
    const unsubscribe = live.listen({
      onConnectedChange: (connected) => setStatus(connected ? 'live' : 'connecting'),
      onGiveUp: () => setStatus('offline'),
      onMessage: (message) => {
        if (message.type === 'margin_call') {
          setMarginCall((prev) => ({
            message: message.data.message,
            marginLevel: message.data.margin_level,
            serial: (prev?.serial ?? 0) + 1,
          }));
        }
        const digits = digitsLookup(queryClient.getQueryData<PlatformDataDto>(tradingKeys.platformData)?.fx_pairs);
        const notice = tradingMessageNotice(message, digits);
        // The dashboard shows a margin call in its banner (docs/screens.md#live-data-and-polling); other pages in a notice.
        if (notice && !(message.type === 'margin_call' && marginCallBanners.current > 0)) notices.notify(notice);
        applyTradingMessage(queryClient, message, () => live.socket.send('get_positions_update', {}));
        if (message.type === 'challenge_update') {
          // The meter reloads and the notice is worded by code that loads with the first evaluation
          // message (features/evaluations/notices.ts): a trader without an evaluation never loads it.
          const meter = message.data;
          void import('../evaluations/notices').then((m) =>
            m.onChallengeUpdate(queryClient, notices, attemptStatuses.current, meter),
          );
        }
      },
    });
    live.start();
    const stopTokens = tokenStore.subscribe((change) => {
      if (change.access) live.socket.reauthenticate();
    });
    const retry = () => {
      if (live.socket.retryNow()) setStatus('connecting');
    };
    setRetry(retry);
    window.addEventListener('online', retry);
    return () => {
      window.removeEventListener('online', retry);
      setRetry(null);
      stopTokens();
      live.stop();
      unsubscribe();
      setStatus('connecting');
    };
  }, [live, queryClient, setStatus, setRetry, notices]);

  // The socket serves one account (docs/accounts.md#the-trading-socket): another selected, another
  // socket, so the live figures and the notices follow the selection; the last margin call was the
  // other account's.
  const { selected } = useAccountSelection();
  const servedAccount = useRef(selected);
  useEffect(() => {
    if (servedAccount.current === selected) return;
    servedAccount.current = selected;
    setMarginCall(null);
    live.switchAccount();
  }, [live, selected]);

  const value: LiveTradingContextValue = {
    live,
    marginCall,
    dismissMarginCall: () => setMarginCall(null),
    marginCallBanners,
  };
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

/**
 * The latest margin call and a way to dismiss it, for the banner that shows it: while a
 * component using this is mounted, margin calls raise no notice.
 */
export function useMarginCall(): { notice: MarginCallNotice | null; dismiss(): void } {
  const { marginCall, dismissMarginCall, marginCallBanners } = useLiveContext();
  useEffect(() => {
    marginCallBanners.current++;
    return () => {
      marginCallBanners.current--;
    };
  }, [marginCallBanners]);
  return { notice: marginCall, dismiss: dismissMarginCall };
}
