/** What a socket counts as in `pipdesk_open_sockets` (docs/operations.md#metrics). */
export type SocketKind = 'price' | 'trading';

/**
 * The one interface the rest of the server records through (docs/operations.md#metrics). Every
 * method is cheap enough for a hot path (a counter increment, a histogram observation) and
 * takes only bounded labels: never a user, an account or a raw URL. With metrics off it is
 * `noMetrics`, whose methods do nothing.
 */
export interface Metrics {
  readonly enabled: boolean;
  /** One answered HTTP request: the route's pattern (`/api/trading/orders/:id/`), never the raw URL. */
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  /** An order event: its type, what happened to it (placed, filled, rejected, cancelled, expired…) and why. */
  order(type: string, outcome: string, reason: string): void;
  /** One execution by the trigger engine (`kind`: fill, stop_limit_trigger, stop_loss, take_profit, trailing_stop, expire). */
  triggerExecution(kind: string, outcome: string): void;
  socketOpened(kind: SocketKind): void;
  socketClosed(kind: SocketKind): void;
  /** A price tick this node received. */
  tick(symbol: string): void;
  /** A write transaction, from BEGIN to the answer's durability (`outcome`: commit or rollback). */
  transaction(outcome: 'commit' | 'rollback', seconds: number): void;
  /** Publish-to-delivery time of a bus event that crossed nodes. */
  busDelay(topic: string, seconds: number): void;
  /** The Prometheus text of this app's registry. */
  render(): Promise<{ contentType: string; body: string }>;
  /** Stops the collectors' timers (the event-loop monitor). */
  close(): void;
}
