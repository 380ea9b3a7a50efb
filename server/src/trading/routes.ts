import { Readable } from 'node:stream';
import { type AccountSummaryDto, ops } from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { operationRoutes, pageAnswer } from '../http/operation-route.js';
import { type MarketModule, priceDto } from '../market/index.js';
import type { TradingServiceImpl } from './service.js';
import { accountId, orderId, positionId, type UserId, userId } from './types.js';

/** The signed-in trader as the contract's user. */
const userOf = (request: FastifyRequest) => ({
  id: request.auth.userId,
  email: request.auth.email,
  full_name: request.auth.fullName,
});

/** The trading calls (docs/api.md#trading-calls); their shapes are the contract's entries. */
export async function registerTradingRoutes(
  api: FastifyInstance,
  deps: {
    auth: AuthModule;
    service: TradingServiceImpl;
    market: Pick<MarketModule, 'buildPairSnapshot'>;
    /** GET trading/accounts/ (queries/accounts-list.ts, which needs the live book). */
    listAccounts: (user: UserId) => Promise<AccountSummaryDto[]>;
  },
): Promise<void> {
  const { service, market } = deps;
  const route = operationRoutes(api, deps.auth);
  const trader = (request: FastifyRequest) => userId(request.auth.userId);

  route(ops.listAccounts, async (_input, { request }) => deps.listAccounts(trader(request)));

  route(ops.platformData, async ({ account }, { request }) => service.platformData(userOf(request), account));

  route(ops.placeMarketOrder, async ({ body, idempotencyKey, account }, { request }) => {
    const { response, replayed } = await service.placeMarketOrderDetailed(trader(request), body, idempotencyKey, account);
    return { data: response, replayed };
  });

  route(ops.closePosition, async ({ ids, body, account }, { request }) =>
    service.closePosition(trader(request), positionId(ids.id), {
      reason: 'client',
      ...(account === undefined ? {} : { accountId: accountId(account) }),
      ...(body.current_price === undefined ? {} : { currentPrice: body.current_price }),
      ...(body.quantity === undefined ? {} : { quantity: body.quantity }),
    }),
  );

  // docs/orders.md: pending orders and protection.
  route(ops.placePendingOrder, async ({ body, idempotencyKey, account }, { request }) => {
    const { response, replayed } = await service.placePendingOrderDetailed(trader(request), body, idempotencyKey, account);
    return { data: response, replayed };
  });

  route(ops.modifyOrder, async ({ ids, body, account }, { request }) =>
    service.modifyOrder(trader(request), orderId(ids.id), body, account),
  );

  route(ops.cancelOrder, async ({ ids, account }, { request }) => service.cancelOrder(trader(request), orderId(ids.id), account));

  route(ops.modifyPosition, async ({ ids, body, account }, { request }) =>
    service.modifyPosition(trader(request), positionId(ids.id), body, account),
  );

  // Streamed page by page (docs/orders.md#csv-export); bad filters answer 400 before the first byte.
  route(ops.exportOrders, async ({ query, account }, { request, reply }) =>
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="orders.csv"')
      .header('cache-control', 'no-store')
      .send(Readable.from(service.exportOrders(trader(request), query, account))),
  );

  route(ops.listOrders, async ({ query, account }, { request }) =>
    pageAnswer(request, await service.listOrders(trader(request), query, account)),
  );

  // The pair page: the market's part (`{pair, price}`, 404 for an unknown pair) and the trader's.
  route(ops.pairPage, async ({ params, account }, { request }) => {
    const snapshot = market.buildPairSnapshot(params.symbol);
    const trading = await service.pairTrading(trader(request), snapshot.pair.symbol, account);
    // An account on a market of its own (a replay session's) sees that market's price (docs/replay.md#the-accounts-market).
    const own = account === undefined ? undefined : await service.markets.marketOf(account);
    if (own) {
      const quote = own.quote(snapshot.pair.symbol);
      return { ...snapshot, price: quote ? priceDto(quote, snapshot.pair.digits) : null, ...trading };
    }
    return { ...snapshot, ...trading };
  });
}
