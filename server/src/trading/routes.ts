import { Readable } from 'node:stream';
import {
  closePositionRequestSchema,
  modifyOrderRequestSchema,
  modifyPositionRequestSchema,
  type OrdersPage,
  ordersQuerySchema,
  type PairPageDto,
  placeMarketOrderRequestSchema,
  placePendingOrderRequestSchema,
} from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AuthModule } from '../auth/index.js';
import { parseInput } from '../core/validate.js';
import { errors } from '../errors.js';
import type { MarketModule } from '../market/index.js';
import { parseIdempotencyKey } from './idempotency.js';
import type { TradingServiceImpl } from './service.js';
import { orderId, positionId, userId } from './types.js';

/** The signed-in trader as the contract's user. */
const userOf = (request: FastifyRequest) => ({
  id: request.auth.userId,
  email: request.auth.email,
  full_name: request.auth.fullName,
});

const symbolParams = z.object({ symbol: z.string().min(1).max(200) });

/** An id in a path: anything but a positive integer cannot be one of the trader's, so it is 404 too. */
export function pathId(raw: string | undefined, notFound: () => Error): number {
  if (!raw || !/^\d{1,15}$/.test(raw)) throw notFound();
  const id = Number(raw);
  if (id <= 0) throw notFound();
  return id;
}

/** `next` / `previous`: the same path and query with another page (relative URLs). */
export function pageLink(request: FastifyRequest, page: number): string {
  const [path, query = ''] = request.url.split('?', 2);
  const params = new URLSearchParams(query);
  params.set('page', String(page));
  return `${path}?${params.toString()}`;
}

export async function registerTradingRoutes(
  api: FastifyInstance,
  deps: { auth: AuthModule; service: TradingServiceImpl; market: Pick<MarketModule, 'buildPairSnapshot'> },
): Promise<void> {
  const { auth, service, market } = deps;
  const preHandler = auth.authenticate;

  api.get('/trading/platform-data/', { preHandler }, async (request) => ({
    success: true,
    data: await service.platformData(userOf(request)),
  }));

  api.post('/trading/place-market-order/', { preHandler }, async (request, reply) => {
    const input = parseInput(placeMarketOrderRequestSchema, request.body);
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    const { response, replayed } = await service.placeMarketOrderDetailed(userId(request.auth.userId), input, key);
    if (replayed) void reply.header('idempotent-replayed', 'true');
    return reply.status(201).send({ success: true, data: response });
  });

  api.post<{ Params: { id: string } }>('/trading/close-position/:id/', { preHandler }, async (request) => {
    const id = positionId(pathId(request.params.id, errors.positionNotFound));
    const input = parseInput(closePositionRequestSchema, request.body ?? {});
    const data = await service.closePosition(userId(request.auth.userId), id, {
      reason: 'client',
      ...(input.current_price === undefined ? {} : { currentPrice: input.current_price }),
      ...(input.quantity === undefined ? {} : { quantity: input.quantity }),
    });
    return { success: true, data };
  });

  // docs/orders.md: pending orders and protection.
  api.post('/trading/place-pending-order/', { preHandler }, async (request, reply) => {
    const input = parseInput(placePendingOrderRequestSchema, request.body);
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    const { response, replayed } = await service.placePendingOrderDetailed(userId(request.auth.userId), input, key);
    if (replayed) void reply.header('idempotent-replayed', 'true');
    return reply.status(201).send({ success: true, data: response });
  });

  api.patch<{ Params: { id: string } }>('/trading/orders/:id/', { preHandler }, async (request) => {
    const id = orderId(pathId(request.params.id, errors.orderNotFound));
    const input = parseInput(modifyOrderRequestSchema, request.body);
    return { success: true, data: await service.modifyOrder(userId(request.auth.userId), id, input) };
  });

  api.post<{ Params: { id: string } }>('/trading/orders/:id/cancel/', { preHandler }, async (request) => {
    const id = orderId(pathId(request.params.id, errors.orderNotFound));
    return { success: true, data: await service.cancelOrder(userId(request.auth.userId), id) };
  });

  api.patch<{ Params: { id: string } }>('/trading/positions/:id/', { preHandler }, async (request) => {
    const id = positionId(pathId(request.params.id, errors.positionNotFound));
    const input = parseInput(modifyPositionRequestSchema, request.body);
    return { success: true, data: await service.modifyPosition(userId(request.auth.userId), id, input) };
  });

  // Streamed page by page (docs/orders.md#csv-export); bad filters answer 400 before the first byte.
  api.get('/trading/orders/export.csv', { preHandler }, async (request, reply) => {
    const query = parseInput(ordersQuerySchema, request.query, 'query');
    const chunks = service.exportOrders(userId(request.auth.userId), query);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="orders.csv"')
      .header('cache-control', 'no-store')
      .send(Readable.from(chunks));
  });

  // Spec shape, no envelope.
  api.get('/trading/orders/', { preHandler }, async (request): Promise<OrdersPage> => {
    const query = parseInput(ordersQuerySchema, request.query, 'query');
    const page = await service.listOrders(userId(request.auth.userId), query);
    const lastPage = Math.max(1, Math.ceil(page.count / page.pageSize));
    return {
      count: page.count,
      next: page.page < lastPage ? pageLink(request, page.page + 1) : null,
      previous: page.page > 1 ? pageLink(request, Math.min(page.page - 1, lastPage)) : null,
      results: page.results,
    };
  });

  // The pair page: the market's part (`{pair, price}`, 404 for an unknown pair) and the trader's.
  api.get('/trading/pair/:symbol/', { preHandler }, async (request): Promise<{ success: true; data: PairPageDto }> => {
    const { symbol } = parseInput(symbolParams, request.params, 'params');
    const snapshot = market.buildPairSnapshot(symbol);
    const trading = await service.pairTrading(userId(request.auth.userId), snapshot.pair.symbol);
    return { success: true, data: { ...snapshot, ...trading } };
  });
}
