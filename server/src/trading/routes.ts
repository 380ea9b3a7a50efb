import { closePositionRequestSchema, type OrdersPage, ordersQuerySchema, placeMarketOrderRequestSchema } from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { parseInput } from '../core/validate.js';
import { errors } from '../errors.js';
import { parseIdempotencyKey } from './idempotency.js';
import type { TradingServiceImpl } from './service.js';

/** The signed-in trader as the contract's user. */
const userOf = (request: FastifyRequest) => ({
  id: request.auth.userId,
  email: request.auth.email,
  full_name: request.auth.fullName,
});

/** An id in a path: anything but a positive integer cannot be one of the trader's, so it is 404 too. */
function pathId(raw: string | undefined, notFound: () => Error): number {
  if (!raw || !/^\d{1,15}$/.test(raw)) throw notFound();
  const id = Number(raw);
  if (id <= 0) throw notFound();
  return id;
}

/** `next` / `previous`: the same path and query with another page (relative URLs). */
function pageLink(request: FastifyRequest, page: number): string {
  const [path, query = ''] = request.url.split('?', 2);
  const params = new URLSearchParams(query);
  params.set('page', String(page));
  return `${path}?${params.toString()}`;
}

export async function registerTradingRoutes(
  api: FastifyInstance,
  deps: { auth: AuthModule; service: TradingServiceImpl },
): Promise<void> {
  const { auth, service } = deps;
  const preHandler = auth.authenticate;

  api.get('/trading/platform-data/', { preHandler }, async (request) => ({
    success: true,
    data: await service.platformData(userOf(request)),
  }));

  api.post('/trading/place-market-order/', { preHandler }, async (request, reply) => {
    const input = parseInput(placeMarketOrderRequestSchema, request.body);
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    const { response, replayed } = await service.placeMarketOrderDetailed(request.auth.userId, input, key);
    if (replayed) void reply.header('idempotent-replayed', 'true');
    return reply.status(201).send({ success: true, data: response });
  });

  api.post<{ Params: { id: string } }>('/trading/close-position/:id/', { preHandler }, async (request) => {
    const id = pathId(request.params.id, () => errors.notFound('Position not found', 'POSITION_NOT_FOUND'));
    const input = parseInput(closePositionRequestSchema, request.body ?? {});
    const data = await service.closePosition(request.auth.userId, id, {
      reason: 'client',
      ...(input.current_price === undefined ? {} : { currentPrice: input.current_price }),
    });
    return { success: true, data };
  });

  // Spec shape, no envelope.
  api.get('/trading/orders/', { preHandler }, async (request): Promise<OrdersPage> => {
    const query = parseInput(ordersQuerySchema, request.query, 'query');
    const page = await service.listOrders(request.auth.userId, query);
    const lastPage = Math.max(1, Math.ceil(page.count / page.pageSize));
    return {
      count: page.count,
      next: page.page < lastPage ? pageLink(request, page.page + 1) : null,
      previous: page.page > 1 ? pageLink(request, Math.min(page.page - 1, lastPage)) : null,
      results: page.results,
    };
  });
}
