import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// Styles: React sets inline style attributes and lightweight-charts draws on canvas, so
// 'unsafe-inline' is allowed for styles only; scripts come from our own origin alone.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https: http:",
  "connect-src 'self' ws: wss:",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** Security headers on every answer (docs/operations.md#http-hardening). HSTS only when the request came over TLS. */
export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => setSecurityHeaders(request, reply));
}

/** Sets the headers on one answer; also used for answers made before any hook runs (a malformed URL). */
export function setSecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('content-security-policy', CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
  reply.header('cross-origin-opener-policy', 'same-origin');
  reply.header('permissions-policy', 'camera=(), microphone=(), geolocation=()');
  if (request.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
}
