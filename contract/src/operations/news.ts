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

/** News. */
export const newsOperations = {
  news: defineOperation({
    method: 'GET',
    path: '/api/news/',
    operationId: 'news',
    summary: 'General FX news',
    description: 'The spec’s shape, **no envelope**. `refresh=true` bypasses the per-source cache.',
    tag: 'news',
    auth: true,
    writes: false,
    rateLimits: ['news-refresh'],
    query: newsQuerySchema,
    ok: { status: 200, description: '`{articles, count}`.', data: newsResponseSchema, envelope: false },
    errors: { 400: validation400 },
  }),
  tradingNews: defineOperation({
    method: 'GET',
    path: '/api/news/trading/',
    operationId: 'tradingNews',
    summary: 'News of some pairs, merged and by pair',
    description: 'The spec’s shape, **no envelope**.',
    tag: 'news',
    auth: true,
    writes: false,
    rateLimits: ['news-refresh'],
    query: tradingNewsQuerySchema,
    ok: { status: 200, description: '`{combined, by_pair}`.', data: tradingNewsResponseSchema, envelope: false },
    errors: { 400: validation400 },
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
