import {
  equityCurveQuerySchema,
  equityCurveSchema,
  journalEntryRequestSchema,
  journalEntrySchema,
  journalPageSchema,
  journalQuerySchema,
  journalTagsSchema,
  performanceSchema,
} from '../performance.js';
import { error, noAccount409, validation400 } from './answers.js';
import { defineOperation } from './define.js';

/** A read of the signed-in trader's current period on the account named, else the primary one (409 without a trading account). */
const periodRead = { tag: 'performance', auth: true, account: true, writes: false } as const;

/** Statistics, the equity curve and the journal (docs/performance.md). */
export const performanceOperations = {
  performance: defineOperation({
    method: 'GET',
    path: '/api/trading/performance/',
    operationId: 'performance',
    summary: 'The current period’s statistics',
    description: 'Definitions: docs/performance.md.',
    ...periodRead,
    ok: { status: 200, description: 'The statistics.', data: performanceSchema },
    errors: { 409: noAccount409 },
  }),
  equityCurve: defineOperation({
    method: 'GET',
    path: '/api/trading/equity-curve/',
    operationId: 'equityCurve',
    summary: 'The equity curve, oldest first',
    ...periodRead,
    query: equityCurveQuerySchema,
    ok: { status: 200, description: 'The points.', data: equityCurveSchema },
    errors: {
      400: validation400,
      409: noAccount409,
    },
  }),
  journal: defineOperation({
    method: 'GET',
    path: '/api/trading/journal/',
    operationId: 'journal',
    summary: 'The journal of closed trades, a page at a time',
    description: 'Like orders/: the page shape, **no envelope**; newest first.',
    ...periodRead,
    query: journalQuerySchema,
    ok: { status: 200, description: '`{count, next, previous, results}`.', data: journalPageSchema, envelope: false },
    errors: {
      400: validation400,
      409: noAccount409,
    },
  }),
  journalTags: defineOperation({
    method: 'GET',
    path: '/api/trading/journal/tags/',
    operationId: 'journalTags',
    summary: 'The trader’s tags of the period, most used first',
    ...periodRead,
    ok: { status: 200, description: 'The tags.', data: journalTagsSchema },
    errors: { 409: noAccount409 },
  }),
  updateJournalEntry: defineOperation({
    method: 'PUT',
    path: '/api/trading/journal/:tradeId/',
    operationId: 'updateJournalEntry',
    summary: 'Write a closed trade’s note, tags and rating',
    description: 'Fields left out keep their value.',
    tag: 'performance',
    auth: true,
    account: true,
    writes: true,
    rateLimits: ['orders'],
    ids: { tradeId: 'trade' },
    body: { schema: journalEntryRequestSchema, required: true },
    ok: { status: 200, description: 'The entry.', data: journalEntrySchema },
    errors: {
      400: validation400,
      404: error('`NOT_FOUND`: another trader’s trade, an execution that closed nothing, or an unknown id.'),
      409: noAccount409,
    },
  }),
} as const;
