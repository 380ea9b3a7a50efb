import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';

/** What a request refused by a stopping node is told to wait: the load balancer sends the retry to another node. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 1;
/** How long a WebSocket gets to answer its close (1001) before it is cut: `ws` would wait 30 s, past the exit bound. */
const SOCKET_CLOSE_GRACE_MS = 1_000;

export interface ShutdownGuard {
  /** Resolves once every request admitted before the shutdown began has finished its work, or after `boundMs`; gives how many were left. */
  drained(boundMs: number): Promise<number>;
  /** Whether the shutdown has begun (new requests are refused). */
  closing(): boolean;
}

/**
 * Graceful shutdown (docs/operations.md#shutdown). Fastify's `close()` stops listening and waits
 * for the connections to end, then runs the modules' onClose hooks, which close the database
 * last. Two gaps that answered an in-flight order 500 ("driver has already been destroyed"):
 * - a request whose client went away no longer holds a connection, yet its handler may still be
 *   in the middle of its transaction: the server's close does not wait for it. `drained` does:
 *   a request counts from `onRequest` until its answer is built (`onSend`), whether or not
 *   anyone is still there to read it;
 * - a request that arrives once the shutdown began (on a keep-alive connection, or between the
 *   start of the shutdown and the listener's close) got Fastify's bare 503 without the envelope
 *   and without `Retry-After`. Here it gets `503 UNAVAILABLE` with `Retry-After`, before its
 *   body is read or anything is done, so a retry (with the same Idempotency-Key) is safe.
 * Every answer during the shutdown says `Connection: close`, so no keep-alive socket holds the
 * exit; open WebSockets are closed with 1001 (going away) and cut if they do not answer.
 *
 * Call right after the security headers (the refusal carries them) and before the other guards.
 * Needs `return503OnClosing: false` on the Fastify instance (else Fastify answers first).
 */
export function installShutdownGuard(app: FastifyInstance): ShutdownGuard {
  let closing = false;
  let inFlight = 0;
  const waiters = new Set<() => void>();
  const refusal = errors.shuttingDown(SHUTDOWN_RETRY_AFTER_SECONDS);
  /** Requests whose handler chain began: from then on only their answer (`onSend`) ends them. */
  const started = new WeakSet<FastifyRequest>();
  const counted = new WeakMap<FastifyRequest, () => void>();

  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      void reply.header('connection', 'close');
      // An upgrade's socket is no longer the HTTP server's: after the answer nobody would close it.
      if (request.url.startsWith('/ws/')) reply.raw.once('finish', () => request.raw.socket?.destroy());
      throw refusal;
    }
    // A socket is not a request to wait for: it is closed with 1001 below.
    if (request.url.startsWith('/ws/')) return;
    inFlight += 1;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight -= 1;
      if (inFlight === 0) for (const wake of waiters) wake();
    };
    counted.set(request, finish);
    // Gone before any of its work began (an abort while its body was read): nothing to wait for.
    reply.raw.once('close', () => {
      if (!started.has(request)) finish();
    });
  });
  app.addHook('preHandler', async (request) => {
    started.add(request);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (closing) void reply.header('connection', 'close');
    counted.get(request)?.();
    return payload;
  });
  app.addHook('preClose', async () => {
    closing = true;
    // 1001 rather than @fastify/websocket's bare close: the clients reconnect (to another node).
    for (const client of app.websocketServer?.clients ?? []) {
      client.close(1001, 'Server shutting down');
      setTimeout(() => client.terminate(), SOCKET_CLOSE_GRACE_MS).unref();
    }
  });

  return {
    closing: () => closing,
    drained: (boundMs) =>
      new Promise<number>((resolve) => {
        if (inFlight === 0) return resolve(0);
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(inFlight);
        };
        const timer = setTimeout(wake, boundMs);
        waiters.add(wake);
      }),
  };
}
