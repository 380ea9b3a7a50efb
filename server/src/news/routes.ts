import {
  type Article,
  type ClearNewsCacheResponse,
  clearNewsCacheRequestSchema,
  type Envelope,
  type NewsResponse,
  newsQuerySchema,
  type TradingNewsResponse,
  tradingNewsQuerySchema,
} from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { parseInput } from '../core/validate.js';
import type { NewsService } from './service.js';

/**
 * The news calls (docs/api.md#news-calls). The two lists answer in the spec's shape at the top level
 * (`{articles, count}`, `{combined, by_pair}`), as the spec's client reads them; clear-cache
 * answers in the usual envelope.
 */
export async function registerNewsRoutes(api: FastifyInstance, deps: { auth: AuthModule; service: NewsService }): Promise<void> {
  const { auth, service } = deps;

  api.get('/news/', { preHandler: auth.authenticate }, async (request): Promise<NewsResponse> => {
    const query = parseInput(newsQuerySchema, request.query, 'query');
    const articles = withAbsoluteUrls(await service.general(query), originOf(request));
    return { articles, count: articles.length };
  });

  api.get('/news/trading/', { preHandler: auth.authenticate }, async (request): Promise<TradingNewsResponse> => {
    const query = parseInput(tradingNewsQuerySchema, request.query, 'query');
    const answer = await service.trading(query);
    const origin = originOf(request);
    return {
      combined: withAbsoluteUrls(answer.combined, origin),
      by_pair: Object.fromEntries(
        Object.entries(answer.by_pair).map(([symbol, list]) => [symbol, withAbsoluteUrls(list, origin)]),
      ),
    };
  });

  api.post(
    '/news/clear-cache/',
    { preHandler: auth.authenticate },
    async (request): Promise<Envelope<ClearNewsCacheResponse>> => {
      const body = parseInput(clearNewsCacheRequestSchema, request.body ?? {}, 'body');
      return { success: true, data: { cleared: service.clearCache(body.type) } };
    },
  );
}

/** The address the trader used, so wire links open this deployment; a garbled Host header falls back to localhost. */
function originOf(request: FastifyRequest): string {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return 'http://localhost';
  }
}

/** Market-wire articles link to this deployment's pair page by path; the answer carries absolute http(s) URLs only. */
function withAbsoluteUrls(articles: Article[], origin: string): Article[] {
  return articles.map((article) =>
    article.article_url.startsWith('/') ? { ...article, article_url: new URL(article.article_url, origin).href } : article,
  );
}
