import type {
  CurrentPrices,
  FxPair,
  OrderDto,
  PairPageDto,
  PlatformDataDto,
  PositionDto,
  TradingAccountDto,
  TradingServerMessage,
} from '@pipdesk/contract';
import { act, configure, screen, waitFor, within } from '@testing-library/react';
import type { ReactElement } from 'react';
import { expect, vi } from 'vitest';
import { NoticeProvider } from '../../notices/NoticeProvider';
import { DEMO_USER, FakeAuthServer, type Reply } from '../../test/fakeAuthServer';
import { renderWithProviders } from '../../test/render';
import { LiveTradingProvider } from './LiveTradingProvider';
import type { SocketLike } from './tradingSocket';

// Test stand-ins for the trading screens: a scriptable socket and DTO builders.

/** A WebSocket the test drives: it records what the client sends and plays the server. */
export class FakeSocket implements SocketLike {
  static instances: FakeSocket[] = [];
  readyState = 0;
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  readonly sent: Array<{ type: string } & Record<string, unknown>> = [];
  closedWith: number | undefined;

  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
  }

  static reset(): void {
    FakeSocket.instances = [];
  }

  static get last(): FakeSocket | undefined {
    return FakeSocket.instances.at(-1);
  }

  static readonly create = (url: string): SocketLike => new FakeSocket(url);

  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }

  close(code?: number): void {
    this.closedWith = code;
    this.readyState = 3;
  }

  sentTypes(): string[] {
    return this.sent.map((m) => m.type);
  }

  // ---- the server's side
  open(): void {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }

  receive(message: TradingServerMessage | Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(message) } as MessageEvent);
  }

  /** Opens and establishes the connection, as the server does for a good token. */
  establish(): void {
    this.open();
    this.receive({ type: 'auth_required', message: 'Send authenticate' });
    this.receive({ type: 'connection_established', user: DEMO_USER });
  }

  serverClose(code = 1006): void {
    this.readyState = 3;
    this.onclose?.({ code } as CloseEvent);
  }
}

export function makePair(overrides: Partial<FxPair> = {}): FxPair {
  return {
    id: 1,
    symbol: 'EURUSD',
    name: 'Euro / US Dollar',
    base_currency: 'EUR',
    quote_currency: 'USD',
    min_lot_size: 0.01,
    max_lot_size: 100,
    contract_size: 100_000,
    spread: 1.2,
    pip_size: 0.0001,
    digits: 5,
    is_active: true,
    ...overrides,
  };
}

export const EURUSD = makePair();
export const USDJPY = makePair({
  id: 3,
  symbol: 'USDJPY',
  name: 'US Dollar / Japanese Yen',
  base_currency: 'USD',
  quote_currency: 'JPY',
  pip_size: 0.01,
  digits: 3,
});
export const EURJPY = makePair({
  id: 9,
  symbol: 'EURJPY',
  name: 'Euro / Japanese Yen',
  base_currency: 'EUR',
  quote_currency: 'JPY',
  pip_size: 0.01,
  digits: 3,
});
export const CATALOGUE: FxPair[] = [EURUSD, USDJPY, EURJPY];

export function makeAccount(overrides: Partial<TradingAccountDto> = {}): TradingAccountDto {
  return {
    id: 1,
    balance: 10_000,
    equity: 10_000,
    margin_used: 0,
    free_margin: 10_000,
    margin_level: null,
    leverage: 100,
    currency: 'USD',
    ...overrides,
  };
}

const T0 = '2026-04-01T12:00:00.000Z';

export function makePosition(overrides: Partial<PositionDto> = {}): PositionDto {
  return {
    id: 11,
    fx_pair: 1,
    fx_pair_symbol: 'EURUSD',
    side: 'LONG',
    quantity: 0.1,
    status: 'OPEN',
    average_entry_price: 1.08734,
    current_price: 1.08712,
    unrealized_pnl: -2.2,
    realized_pnl: 0,
    margin_used: 108.72,
    created_at: T0,
    updated_at: T0,
    closed_at: null,
    stop_loss: null,
    take_profit: null,
    trailing_stop_pips: null,
    ...overrides,
  };
}

export function makeOrder(overrides: Partial<OrderDto> = {}): OrderDto {
  return {
    id: 21,
    fx_pair: 1,
    fx_pair_symbol: 'EURUSD',
    order_type: 'MARKET',
    side: 'BUY',
    quantity: 0.1,
    filled_quantity: 0.1,
    price: null,
    average_fill_price: 1.08734,
    status: 'FILLED',
    rejection_reason: null,
    reason: 'client',
    position_id: 11,
    current_price: null,
    submitted_at: T0,
    created_at: T0,
    updated_at: T0,
    time_in_force: 'GTC',
    expires_at: null,
    limit_price: null,
    triggered_at: null,
    stop_loss: null,
    take_profit: null,
    trailing_stop_pips: null,
    ...overrides,
  };
}

export function makePlatformData(overrides: Partial<PlatformDataDto> = {}): PlatformDataDto {
  return {
    trader_profile: { id: 1, user: DEMO_USER },
    trading_account: makeAccount(),
    fx_pairs: CATALOGUE,
    open_positions: [],
    recent_orders: [],
    recent_trades: [],
    trading_mode: 'live',
    pending_orders: [],
    ...overrides,
  };
}

export function makePrices(mids: Record<string, number>, timestamp = T0): CurrentPrices {
  const out: CurrentPrices = {};
  for (const [symbol, mid] of Object.entries(mids)) {
    const half = symbol.endsWith('JPY') ? 0.006 : 0.00006;
    out[symbol] = { bid: mid - half, ask: mid + half, mid, price: mid, timestamp };
  }
  return out;
}

/** A pair page's answer: the pair at `price`, nothing held, ordered or pending, the default account. */
export function makePairPage(pair: FxPair, price: PairPageDto['price'], overrides: Partial<PairPageDto> = {}): PairPageDto {
  return {
    pair,
    price,
    positions: [],
    recent_orders: [],
    trading_account: makeAccount(),
    pending_orders: [],
    ...overrides,
  };
}

/** The prices `serveTrading` serves unless told otherwise: EURUSD bid 1.19994, ask 1.20006. */
export const tradingPrices = (): CurrentPrices => makePrices({ EURUSD: 1.2, USDJPY: 150, EURJPY: 180 });

export const ok = (data: unknown) => ({ status: 200, body: { success: true, data } });

/** Serves platform-data and current-prices on the fake server (requires a signed-in token). */
export function serveTrading(
  server: FakeAuthServer,
  data: () => PlatformDataDto,
  prices: () => CurrentPrices = tradingPrices,
): void {
  server.on('/api/trading/platform-data/', () => ok(data()));
  server.on('/api/trading/current-prices/', () => ok(prices()));
}

/**
 * A signed-in trader's fake server serving platform-data and current-prices, with no trading
 * socket opened yet (call in `beforeEach`).
 */
export function startTradingServer(data: () => PlatformDataDto, prices?: () => CurrentPrices): FakeAuthServer {
  FakeSocket.reset();
  const server = new FakeAuthServer().install();
  server.signedInBefore();
  serveTrading(server, data, prices);
  return server;
}

/** Waits for the trading socket to open and plays the server establishing it. */
export async function establishSocket(): Promise<FakeSocket> {
  await waitFor(() => expect(FakeSocket.last).toBeDefined());
  act(() => FakeSocket.last!.establish());
  return FakeSocket.last!;
}

/**
 * Scripts the next call to `path` to wait for the returned `release` before `reply` arrives, so
 * a test can see the screen while the request is in flight.
 */
export function holdReply(server: FakeAuthServer, path: string, reply: Reply): () => void {
  let release: () => void = () => {};
  server.script(path, () => new Promise((resolve) => (release = () => resolve(reply))));
  return () => release();
}

/** Suites that render whole screens run on a loaded 2-core CI machine: generous waits, each for an observable state. */
export function allowSlowScreens(): void {
  configure({ asyncUtilTimeout: 5_000 });
  vi.setConfig({ testTimeout: 30_000 });
}

/** The notices (toasts) region of the signed-in app. */
export const notifications = () => screen.getByRole('region', { name: 'Notifications' });

/** Waits for a notice with this text (its title or its message) and returns its list item. */
export async function findNotice(text: string | RegExp): Promise<HTMLElement> {
  return (await within(notifications()).findByText(text)).closest('li') as HTMLElement;
}

/** Renders a trading screen with the providers, the notices and the live feed on a FakeSocket (reconnects without jitter). */
export function renderTrading(ui: ReactElement, options: { path?: string } = {}) {
  return renderWithProviders(
    <NoticeProvider>
      <LiveTradingProvider createSocket={FakeSocket.create} random={() => 0}>
        {ui}
      </LiveTradingProvider>
    </NoticeProvider>,
    options,
  );
}
