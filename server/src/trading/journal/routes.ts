import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../../auth/index.js';
import { operationRoutes, pageAnswer } from '../../http/operation-route.js';
import type { TradingDeps } from '../deps.js';
import { optionalAccountId, userId } from '../types.js';
import { journalOfUser, journalTagsOfUser, updateJournalEntry } from './service.js';

export async function registerJournalRoutes(
  api: FastifyInstance,
  deps: { auth: AuthModule; trading: Pick<TradingDeps, 'db' | 'pricing' | 'clock'> },
): Promise<void> {
  const route = operationRoutes(api, deps.auth);

  // Like orders/: the page shape, no envelope (docs/api.md#order-list).
  route(ops.journal, async ({ query, account }, { request }) =>
    pageAnswer(request, await journalOfUser(deps.trading, userId(request.auth.userId), query, optionalAccountId(account))),
  );

  route(ops.journalTags, async ({ account }, { request }) =>
    journalTagsOfUser(deps.trading, userId(request.auth.userId), optionalAccountId(account)),
  );

  route(ops.updateJournalEntry, async ({ ids, body, account }, { request }) =>
    updateJournalEntry(deps.trading, userId(request.auth.userId), ids.tradeId, body, optionalAccountId(account)),
  );
}
