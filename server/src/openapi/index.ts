import { readFileSync } from 'node:fs';
import path from 'node:path';
import { API_OPERATIONS, ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import { operationRoutes } from '../http/operation-route.js';
import { DOCS_CSS, DOCS_HTML, DOCS_JS } from './docs-page.js';
import { buildOpenApiDocument, type OpenApiDocument } from './document.js';

/** The server package's version, from src/openapi or dist/openapi alike. */
function serverVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * The API document at /api/openapi.json and its page at /api/docs/ (docs/api.md#openapi). The
 * document is built once, at its first request.
 */
export function installApiDocs(app: FastifyInstance): void {
  let document: OpenApiDocument | undefined;

  // Neither call signs in (their entries say `auth: false`).
  const route = operationRoutes(app);
  route(ops.openapi, async (_input, { reply }) => {
    document ??= buildOpenApiDocument(API_OPERATIONS, serverVersion());
    void reply.header('cache-control', 'no-cache');
    return document;
  });
  route(ops.docsPage, async (_input, { reply }) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(DOCS_HTML),
  );
  app.get('/api/docs/docs.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(DOCS_JS),
  );
  app.get('/api/docs/docs.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'no-cache').send(DOCS_CSS),
  );
}
