import {
  clearNewsCacheRequestSchema,
  clearNewsCacheResponseSchema,
  newsQuerySchema,
  newsResponseSchema,
  tradingNewsQuerySchema,
  tradingNewsResponseSchema,
} from '../news.js';
import { validation400 } from './answers.js';
import { defineOperation } from './define.js';

/** A news list: read by a signed-in trader, a refresh counts against its own limit (docs/api.md#news-calls). */
const newsList = {
  tag: 'news',
  auth: true,
  writes: false,
  rateLimits: ['news-refresh'],
  errors: { 400: validation400 },
} as const;

/** News. */
export const newsOperations = {
  news: defineOperation({
    method: 'GET',
    path: '/api/news/',
    operationId: 'news',
    summary: 'General FX news',
    description: 'The spec’s shape, **no envelope**. `refresh=true` bypasses the per-source cache.',
    ...newsList,
    query: newsQuerySchema,
    ok: { status: 200, description: '`{articles, count}`.', data: newsResponseSchema, envelope: false },
  }),
  tradingNews: defineOperation({
    method: 'GET',
    path: '/api/news/trading/',
    operationId: 'tradingNews',
    summary: 'News of some pairs, merged and by pair',
    description: 'The spec’s shape, **no envelope**.',
    ...newsList,
    query: tradingNewsQuerySchema,
    ok: { status: 200, description: '`{combined, by_pair}`.', data: tradingNewsResponseSchema, envelope: false },
  }),
  clearNewsCache: defineOperation({
    method: 'POST',
    path: '/api/news/clear-cache/',
    operationId: 'clearNewsCache',
    summary: 'Drop cached news',
    tag: 'news',
    auth: true,
    writes: true,
    body: { schema: clearNewsCacheRequestSchema, required: false },
    ok: { status: 200, description: 'How many cache entries were dropped.', data: clearNewsCacheResponseSchema },
    errors: {
      400: validation400,
    },
  }),
} as const;
