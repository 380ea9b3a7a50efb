import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../../auth/index.js';
import { operationRoutes, pageAnswer } from '../../http/operation-route.js';
import type { TradingDeps } from '../deps.js';
import { userId } from '../types.js';
import { journalOfUser, journalTagsOfUser, updateJournalEntry } from './service.js';

export async function registerJournalRoutes(
  api: FastifyInstance,
  deps: { auth: AuthModule; trading: Pick<TradingDeps, 'db' | 'pricing' | 'clock'> },
): Promise<void> {
  const route = operationRoutes(api, deps.auth);

  // Like orders/: the page shape, no envelope (docs/api.md#order-list).
  route(ops.journal, async ({ query }, { request }) =>
    pageAnswer(request, await journalOfUser(deps.trading, userId(request.auth.userId), query)),
  );

  route(ops.journalTags, async (_input, { request }) => journalTagsOfUser(deps.trading, userId(request.auth.userId)));

  route(ops.updateJournalEntry, async ({ ids, body }, { request }) =>
    updateJournalEntry(deps.trading, userId(request.auth.userId), ids.tradeId, body),
  );
}
