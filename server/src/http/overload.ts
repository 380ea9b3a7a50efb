import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { errors } from '../errors.js';

/** Why a call was shed: the event loop is behind, or a cap on calls in flight is reached. */
export type ShedReason = 'event_loop_delay' | 'event_loop_utilization' | 'in_flight' | 'writes_in_flight';

/** Milliseconds between two "shedding" log lines, so an overload does not also flood the log. */
const LOG_EVERY_MS = 10_000;

/**
 * Load shedding (docs/operations.md#overload): an overloaded node answers new calls
 * `503 SERVER_BUSY` with `Retry-After` at once, instead of queueing them behind work it cannot
 * finish, so no wait grows without limit. Two signals:
 * - the event loop: its mean delay, or its utilization, over several samples in a row;
 * - a cap on `/api` calls in flight on this node, and a lower one on the calls that write (on
 *   SQLite they share one writer, on PostgreSQL the pool's connections), so the queue in front
 *   of the database is bounded: its wait is at most the cap ÷ the node's throughput.
 * A call is refused in `onRequest`, before its body is read, its token checked or anything
 * stored; a call admitted is never dropped and completes as usual (an order admitted is
 * executed and answered). The health probes, `/metrics`, static files and answers already under
 * way are never shed; new socket upgrades are refused while the node is over a limit (the open
 * sockets stay), since each costs a sign-in and a snapshot.
 *
 * Call after the security headers and before the routes are registered.
 */
export function installOverloadGuard(app: FastifyInstance, settings: Config['overload']): void {
  let shedSinceLog = 0;
  let lastLog = Number.NEGATIVE_INFINITY;
  // One answer for every refusal: the handler only reads it, and an error made per call would
  // capture a stack trace each time, about a sixth of a refusal's cost (bench/refusal.mjs).
  const busy = errors.serverBusy(settings.retryAfterSeconds);
  const shed = (request: FastifyRequest, reason: ShedReason) => {
    shedSinceLog += 1;
    const now = performance.now();
    if (now - lastLog >= LOG_EVERY_MS) {
      request.log.warn({ reason, shed: shedSinceLog }, 'overloaded: answering 503 to new calls');
      lastLog = now;
      shedSinceLog = 0;
    }
    return busy;
  };

  const loop = watchEventLoop(app, settings);
  const { maxInFlight, maxWritesInFlight } = settings;
  if (!loop && maxInFlight === 0 && maxWritesInFlight === 0) return;
  let inFlight = 0;
  let writesInFlight = 0;
  app.addHook('onRequest', async (request, reply) => {
    const kind = guarded(request);
    if (kind === 'exempt') return;
    const write = kind === 'call' && !READ_METHODS.has(request.method);
    const reason =
      loop?.pressure() ??
      (maxInFlight > 0 && inFlight >= maxInFlight
        ? 'in_flight'
        : write && maxWritesInFlight > 0 && writesInFlight >= maxWritesInFlight
          ? 'writes_in_flight'
          : undefined);
    if (reason) {
      if (kind === 'socket') closeAfterAnswer(request, reply);
      throw shed(request, reason);
    }
    // A socket lives for hours: it is refused when the node is full, but never counted.
    if (kind === 'socket') return;
    inFlight += 1;
    if (write) writesInFlight += 1;
    // 'close' comes exactly once per response: after it is sent, or when the client went away
    // (then the work may still be finishing; the slot is freed a little early rather than leaked).
    reply.raw.once('close', () => {
      inFlight -= 1;
      if (write) writesInFlight -= 1;
    });
  });
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The event-loop monitor's timer period (as @fastify/under-pressure's). */
const RESOLUTION_MS = 10;
/** Consecutive samples over a limit before calls are shed: one stall (a GC, start-up) is not an overload. */
const SUSTAINED_SAMPLES = 3;

/**
 * Samples the event loop every `sampleIntervalMs` as @fastify/under-pressure does (the mean delay
 * of its timer, less the timer's period; the utilization over the interval), but reports
 * pressure only once `SUSTAINED_SAMPLES` samples in a row were over a limit, and until one is
 * not. Undefined when both limits are off.
 */
function watchEventLoop(
  app: FastifyInstance,
  settings: Config['overload'],
): { pressure(): 'event_loop_delay' | 'event_loop_utilization' | undefined } | undefined {
  const { maxEventLoopDelayMs, maxEventLoopUtilization, sampleIntervalMs } = settings;
  if (maxEventLoopDelayMs === 0 && maxEventLoopUtilization === 0) return undefined;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let utilization = performance.eventLoopUtilization();
  let sampledAt = performance.now();
  let overFor = 0;
  let pressure: 'event_loop_delay' | 'event_loop_utilization' | undefined;
  const timer = setInterval(() => {
    const now = performance.now();
    // No timer turn at all in the interval: the loop was stalled for all of it.
    const delayMs = histogram.count > 0 ? Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS) : now - sampledAt;
    histogram.reset();
    sampledAt = now;
    const current = performance.eventLoopUtilization();
    const used = performance.eventLoopUtilization(current, utilization).utilization;
    utilization = current;
    const over =
      maxEventLoopDelayMs > 0 && delayMs > maxEventLoopDelayMs
        ? 'event_loop_delay'
        : maxEventLoopUtilization > 0 && used > maxEventLoopUtilization
          ? 'event_loop_utilization'
          : undefined;
    overFor = over ? overFor + 1 : 0;
    pressure = overFor >= SUSTAINED_SAMPLES ? over : undefined;
  }, sampleIntervalMs);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    histogram.disable();
  });
  return { pressure: () => pressure };
}

/**
 * A refused upgrade: Node handed the socket over for the upgrade and no longer manages it, so
 * after the 503 nobody would close it (and the server's close would wait for it forever).
 */
function closeAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('connection', 'close');
  reply.raw.once('finish', () => request.raw.socket?.destroy());
}

/** What the guard does with a request: count and cap an API call, refuse a socket upgrade when full, or leave it be. */
function guarded(request: FastifyRequest): 'call' | 'socket' | 'exempt' {
  const url = request.url;
  if (url.startsWith('/ws/')) return 'socket';
  if (!url.startsWith('/api/') || url.startsWith('/api/health')) return 'exempt';
  return 'call';
}
