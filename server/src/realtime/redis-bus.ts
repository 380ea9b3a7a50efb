import { Redis } from 'ioredis';
import type { Bus, BusEvents, BusTopic } from './bus.js';

/**
 * Redis pub/sub bus: every node publishes and every node (itself included) receives.
 * Channels are `prefix + topic`; deployments sharing one Redis use different prefixes.
 */
export async function createRedisBus(url: string, prefix = 'pipdesk:'): Promise<Bus> {
  const pub = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  const sub = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await Promise.all([pub.connect(), sub.connect()]);
  const handlers = new Map<string, Set<(event: unknown) => void>>();
  sub.on('message', (channel: string, message: string) => {
    const set = handlers.get(channel.slice(prefix.length));
    if (!set) return;
    const event = JSON.parse(message) as unknown;
    for (const h of set) h(event);
  });
  return {
    name: 'redis',
    publish<K extends BusTopic>(topic: K, event: BusEvents[K]) {
      void pub.publish(prefix + topic, JSON.stringify(event));
    },
    subscribe<K extends BusTopic>(topic: K, handler: (event: BusEvents[K]) => void) {
      let set = handlers.get(topic);
      if (!set) {
        set = new Set();
        handlers.set(topic, set);
        void sub.subscribe(prefix + topic);
      }
      const h = handler as (event: unknown) => void;
      set.add(h);
      return () => set?.delete(h);
    },
    healthy: () => pub.status === 'ready' && sub.status === 'ready',
    async close() {
      // quit() flushes pending publishes (a CLI's `user_disabled` must reach the servers).
      await Promise.allSettled([sub.quit(), pub.quit()]);
    },
  };
}
