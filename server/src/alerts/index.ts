import type { TradingServerMessageMap, TradingServerMessageType } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import type { AppContext } from '../core/context.js';
import type { MarketModule } from '../market/index.js';
import { AlertEvaluator, type AlertEvaluatorOptions, defaultEvaluatorOptions } from './evaluator.js';
import { registerAlertRoutes } from './routes.js';
import type { AlertServiceDeps } from './service.js';
import { ALERT_UPDATE_TOPIC } from './types.js';

export type { AlertEvaluator } from './evaluator.js';

/** What alerts need of the trading socket: one message to a trader's sockets on this node. */
export interface TraderSockets {
  sendToUser<K extends TradingServerMessageType>(userId: number, type: K, payload: TradingServerMessageMap[K]): void;
}

export interface AlertsModule {
  registerRoutes(api: FastifyInstance): Promise<void>;
  /** Starts telling traders of their alerts, then the evaluator (which, on the leader, loads before it returns). */
  start(): Promise<void>;
  stop(): Promise<void>;
  evaluator: AlertEvaluator;
}

/**
 * Price alerts (docs/charting.md#alerts): the calls, the evaluation on the price-source leader,
 * and `alert_update` to the trader's trading sockets on every node.
 */
export function createAlertsModule(
  ctx: AppContext,
  deps: { auth: AuthModule; market: MarketModule; sockets: TraderSockets },
  options: Partial<AlertEvaluatorOptions> = {},
): AlertsModule {
  const service: AlertServiceDeps = { db: ctx.db, bus: ctx.bus, clock: ctx.clock, pairs: deps.market.pairs };
  const evaluator = new AlertEvaluator(
    { db: ctx.db, bus: ctx.bus, clock: ctx.clock, log: ctx.log, market: deps.market },
    { ...defaultEvaluatorOptions, ...options },
  );
  let unsubscribe: (() => void) | undefined;
  return {
    evaluator,
    registerRoutes: (api) => registerAlertRoutes(api, { auth: deps.auth, alerts: service }),
    async start() {
      unsubscribe = ctx.bus.subscribe('message', (message) => {
        if (message.topic !== ALERT_UPDATE_TOPIC) return;
        for (const { userId, alert } of message.payload.updates)
          deps.sockets.sendToUser(userId, 'alert_update', { data: { alert } });
      });
      await evaluator.start();
    },
    async stop() {
      await evaluator.stop();
      unsubscribe?.();
    },
  };
}
