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

/**
 * The headers of every answer; `tls` adds HSTS. Also written by hand on the answers Node's
 * parser makes before Fastify sees a request (http/client-errors.ts).
 */
export function securityHeaders(tls: boolean): Record<string, string> {
  return {
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
    ...(tls ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

/** Sets the headers on one answer; also used for answers made before any hook runs (a malformed URL). */
export function setSecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(securityHeaders(request.protocol === 'https'));
}
