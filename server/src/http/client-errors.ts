import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import { type AppError, errorEnvelope, errors } from '../errors.js';
import { securityHeaders } from './security.js';

/** What Node's `clientError` hands over: the parser's error code, when it has one. */
type ClientError = Error & { code?: string };

/**
 * The catalogue error for a request Node's HTTP parser refused before Fastify saw it (a
 * malformed request head, headers over the limit, a head or body too slow), with the status
 * Node itself would answer (docs/api.md#hostile-input).
 */
export function clientErrorAnswer(err: ClientError): AppError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return errors.headersTooLarge();
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return errors.payloadTooLarge();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errors.requestTimeout();
    default:
      return errors.malformedRequest();
  }
}

/** The raw HTTP answer written on the socket: the envelope, the security headers, then close. */
export function clientErrorResponse(answer: AppError, tls: boolean): string {
  const body = JSON.stringify(errorEnvelope(answer));
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    connection: 'close',
    ...securityHeaders(tls),
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}\r\n${head}\r\n${body}`;
}

/** The in-flight response Node keeps on a keep-alive socket (not in its public types). */
type HttpSocket = Socket & { _httpMessage?: { headersSent?: boolean } | null };

/**
 * Fastify's `clientErrorHandler` (Fastify calls it with the instance as `this`): Node's
 * parser-level errors answered like every other failure instead of Node's
 * `{"error":"Bad Request","message":"Client Error"}`.
 */
export function answerClientError(this: { log: FastifyBaseLogger } | undefined, err: ClientError, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = clientErrorAnswer(err);
  this?.log.debug({ code: err.code, status: answer.status }, 'client error');
  // As Node does: never write into a response already under way on this socket.
  const inFlight = (socket as HttpSocket)._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(clientErrorResponse(answer, Boolean((socket as TLSSocket).encrypted)));
  }
  socket.destroy(err);
}
