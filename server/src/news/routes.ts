import { type Article, ops } from '@pipdesk/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { operationRoutes } from '../http/operation-route.js';
import type { NewsService } from './service.js';

/**
 * The news calls (docs/api.md#news-calls). The two lists answer in the spec's shape at the top level
 * (`{articles, count}`, `{combined, by_pair}`), as the spec's client reads them; clear-cache
 * answers in the usual envelope.
 */
export async function registerNewsRoutes(api: FastifyInstance, deps: { auth: AuthModule; service: NewsService }): Promise<void> {
  const { service } = deps;
  const route = operationRoutes(api, deps.auth);

  route(ops.news, async ({ query }, { request }) => {
    const articles = withAbsoluteUrls(await service.general(query), originOf(request));
    return { articles, count: articles.length };
  });

  route(ops.tradingNews, async ({ query }, { request }) => {
    const answer = await service.trading(query);
    const origin = originOf(request);
    return {
      combined: withAbsoluteUrls(answer.combined, origin),
      by_pair: Object.fromEntries(
        Object.entries(answer.by_pair).map(([symbol, list]) => [symbol, withAbsoluteUrls(list, origin)]),
      ),
    };
  });

  route(ops.clearNewsCache, async ({ body }) => ({ cleared: service.clearCache(body.type) }));
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
