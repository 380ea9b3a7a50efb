import {
  type JournalEntryDto,
  type JournalPage,
  type JournalTagsDto,
  journalEntryRequestSchema,
  journalQuerySchema,
} from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../../auth/index.js';
import { parseInput } from '../../core/validate.js';
import { errors } from '../../errors.js';
import type { TradingDeps } from '../deps.js';
import { pageLink, pathId } from '../routes.js';
import { userId } from '../types.js';
import { journalOfUser, journalTagsOfUser, updateJournalEntry } from './service.js';

export async function registerJournalRoutes(
  api: FastifyInstance,
  deps: { auth: AuthModule; trading: Pick<TradingDeps, 'db' | 'pricing' | 'clock'> },
): Promise<void> {
  const preHandler = deps.auth.authenticate;

  // Like orders/: the spec's page shape, no envelope.
  api.get('/trading/journal/', { preHandler }, async (request): Promise<JournalPage> => {
    const query = parseInput(journalQuerySchema, request.query, 'query');
    const page = await journalOfUser(deps.trading, userId(request.auth.userId), query);
    const lastPage = Math.max(1, Math.ceil(page.count / page.pageSize));
    return {
      count: page.count,
      next: page.page < lastPage ? pageLink(request, page.page + 1) : null,
      previous: page.page > 1 ? pageLink(request, Math.min(page.page - 1, lastPage)) : null,
      results: page.results,
    };
  });

  api.get(
    '/trading/journal/tags/',
    { preHandler },
    async (request): Promise<{ success: true; data: JournalTagsDto }> => ({
      success: true,
      data: await journalTagsOfUser(deps.trading, userId(request.auth.userId)),
    }),
  );

  api.put<{ Params: { tradeId: string } }>(
    '/trading/journal/:tradeId/',
    { preHandler },
    async (request): Promise<{ success: true; data: JournalEntryDto }> => {
      const tradeId = pathId(request.params.tradeId, () => errors.notFound('Trade not found'));
      const input = parseInput(journalEntryRequestSchema, request.body);
      return { success: true, data: await updateJournalEntry(deps.trading, userId(request.auth.userId), tradeId, input) };
    },
  );
}
