import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Bus, BusPayload, BusTopic } from './bus.js';

/** What the bus logs with (the app's logger; the CLI logs nothing). */
export type BusLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

const silentLog: BusLog = { info: () => {}, warn: () => {}, error: () => {} };

/** What travels on a channel: the event and the node that published it. */
interface Envelope {
  from: string;
  event: unknown;
  /** When it was published (epoch ms): the receiver's bus delay (docs/operations.md#metrics). */
  sent?: number;
}

/** Told of each event received from Redis: its topic and the publish-to-delivery delay in seconds. */
export type BusDelayObserver = (topic: string, seconds: number) => void;

/**
 * Redis pub/sub bus: every node publishes and every node (itself included) receives.
 * Channels are `prefix + topic`; deployments sharing one Redis use different prefixes.
 *
 * A Redis outage degrades it, never the process (docs/operations.md#redis-outages-and-leadership):
 * no Redis error escapes as an unhandled rejection; while Redis is unreachable, `publish`
 * delivers to this node's own subscribers only (its traders keep their confirmations and
 * prices) and nothing is queued (a tick held through an outage would arrive stale); ioredis
 * reconnects with backoff; once both connections are back and subscribed again, the bus
 * raises `resync` here and announces it to the other nodes, and each reloads from the
 * database what the outage hid from it.
 */
export async function createRedisBus(
  url: string,
  prefix = 'pipdesk:',
  log: BusLog = silentLog,
  onDelay?: BusDelayObserver,
): Promise<Bus> {
  const node = randomUUID();
  // Publishes are never held for later (no offline queue, no resend after a reconnection).
  const pub = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 1,
  });
  // The bus re-subscribes itself after each reconnection (relink), so it knows when that is done.
  const sub = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, autoResubscribe: false, maxRetriesPerRequest: 1 });
  const handlers = new Map<string, Set<(event: unknown) => void>>();
  const healthListeners = new Set<(healthy: boolean) => void>();
  let linked = false;
  let everLinked = false;
  let relinking = false;
  let closing = false;
  /** One warning per outage, not one per reconnection attempt or lost publish. */
  let outageWarned = false;

  const deliver = (topic: string, event: unknown) => {
    const set = handlers.get(topic);
    if (!set) return;
    for (const handler of [...set]) {
      try {
        handler(event);
      } catch (err) {
        log.error({ err, topic }, 'a bus event handler failed');
      }
    }
  };

  const setLinked = (up: boolean) => {
    if (linked === up) return;
    linked = up;
    for (const listener of [...healthListeners]) {
      try {
        listener(up);
      } catch (err) {
        log.error({ err }, 'a bus health listener failed');
      }
    }
  };

  const healthy = () => linked && pub.status === 'ready' && sub.status === 'ready';

  const warnOnce = (err: unknown, message: string) => {
    if (outageWarned || closing) return;
    outageWarned = true;
    log.warn({ err, node }, message);
  };

  const unlink = () => {
    if (closing || !linked) return;
    setLinked(false);
    warnOnce(
      undefined,
      'Redis bus down: cross-node delivery degraded; this node serves its own traders and resynchronises when Redis is back',
    );
  };

  /** Both connections ready: subscribe every topic again, then report healthy (and, after an outage, resync). */
  const relink = async () => {
    if (closing || linked || relinking || pub.status !== 'ready' || sub.status !== 'ready') return;
    relinking = true;
    try {
      const channels = [...handlers.keys()].map((topic) => prefix + topic);
      if (channels.length > 0) await sub.subscribe(...channels);
    } catch (err) {
      // The connection dropped meanwhile: its next 'ready' relinks.
      warnOnce(err, 'subscribing to the Redis bus failed; retrying on the next reconnection');
      return;
    } finally {
      relinking = false;
    }
    if (closing || pub.status !== 'ready' || sub.status !== 'ready') return;
    const recovered = everLinked;
    everLinked = true;
    outageWarned = false;
    setLinked(true);
    if (!recovered) return;
    log.info({ node }, 'Redis bus back: cross-node delivery restored; resynchronising from the database');
    // This node reloads now; the others reload when they hear it (they missed what it did meanwhile).
    const resync: BusPayload<'resync'> = { node };
    deliver('resync', resync);
    publishRemote('resync', resync);
  };

  const publishRemote = (topic: string, event: unknown) => {
    // Wall-clock time on purpose: the delay spans two processes (nodes' clocks are NTP-synced).
    const envelope: Envelope = onDelay ? { from: node, event, sent: Date.now() } : { from: node, event };
    pub.publish(prefix + topic, JSON.stringify(envelope)).catch((err: unknown) => {
      // Lost with the connection: the resync after the reconnection covers it.
      warnOnce(err, 'publishing on the Redis bus failed; cross-node delivery degraded');
    });
  };

  sub.on('message', (channel: string, message: string) => {
    const topic = channel.slice(prefix.length);
    let envelope: Partial<Envelope> | null;
    try {
      envelope = JSON.parse(message) as Partial<Envelope> | null;
    } catch {
      log.warn({ channel }, 'an unreadable bus message was dropped');
      return;
    }
    if (typeof envelope !== 'object' || envelope === null) return;
    // A node's own announcement was handled here when it relinked.
    if (topic === 'resync' && envelope.from === node) return;
    if (onDelay && typeof envelope.sent === 'number') onDelay(topic, (Date.now() - envelope.sent) / 1000);
    deliver(topic, envelope.event);
  });
  for (const connection of [pub, sub]) {
    connection.on('ready', () => void relink());
    connection.on('close', unlink);
    connection.on('end', unlink);
    // Without a listener ioredis prints every reconnection failure; the outage is logged once instead.
    connection.on('error', (err: unknown) => warnOnce(err, 'Redis bus connection error; reconnecting'));
  }

  try {
    await Promise.all([pub.connect(), sub.connect()]);
  } catch (err) {
    closing = true;
    pub.disconnect();
    sub.disconnect();
    throw err;
  }
  await relink();

  return {
    name: 'redis',
    publish<T extends BusTopic>(topic: T, payload: BusPayload<T>) {
      if (healthy()) publishRemote(topic, payload);
      // Redis is down: this node's own traders still hear of it; the other nodes reload it after the outage.
      else deliver(topic, payload);
    },
    subscribe<T extends BusTopic>(topic: T, handler: (payload: BusPayload<T>) => void) {
      let set = handlers.get(topic);
      if (!set) {
        set = new Set();
        handlers.set(topic, set);
        // While down, the next relink subscribes it with the others.
        if (sub.status === 'ready') {
          sub.subscribe(prefix + topic).catch((err: unknown) => warnOnce(err, 'subscribing to the Redis bus failed'));
        }
      }
      // Whatever arrives on the topic's channel was published with its declared payload (the contract's map).
      const h = handler as (event: unknown) => void;
      set.add(h);
      return () => set?.delete(h);
    },
    healthy,
    onHealthChange(listener) {
      healthListeners.add(listener);
      return () => healthListeners.delete(listener);
    },
    async close() {
      closing = true;
      // quit() flushes pending publishes (a CLI's `user_disabled` must reach the servers);
      // disconnect() then stops any reconnection still scheduled.
      await Promise.allSettled([sub.quit(), pub.quit()]);
      sub.disconnect();
      pub.disconnect();
    },
  };
}
