import { describe, expect, it } from 'vitest';
import { type Bus, MemoryBus } from './bus.js';
import { createRedisBus } from './redis-bus.js';

const redisUrl = process.env.TEST_REDIS_URL;

function nextEvent<T>(subscribe: (h: (e: T) => void) => () => void, timeoutMs = 3000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no event within timeout')), timeoutMs);
    const off = subscribe((e) => {
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

describe('memory bus', () => {
  it('delivers events in publish order and stops after unsubscribe', () => {
    const bus = new MemoryBus();
    const seen: string[] = [];
    const off = bus.subscribe('session_revoked', (e) => seen.push(e.sessionId));
    bus.publish('session_revoked', { sessionId: 'a' });
    bus.publish('session_revoked', { sessionId: 'b' });
    off();
    bus.publish('session_revoked', { sessionId: 'c' });
    expect(seen).toEqual(['a', 'b']);
  });
});

// The Redis suite runs whenever a Redis is configured (CI sets TEST_REDIS_URL and requires it).
if (redisUrl) {
  describe('redis bus (two nodes)', () => {
    it('delivers an event published on one node to the other node and to itself', async () => {
      const prefix = `pipdesk-bus-test-${process.pid}:`;
      const nodeA: Bus = await createRedisBus(redisUrl, prefix);
      const nodeB: Bus = await createRedisBus(redisUrl, prefix);
      try {
        const onB = nextEvent<{ userId: number }>((h) => nodeB.subscribe('user_disabled', h));
        const onA = nextEvent<{ userId: number }>((h) => nodeA.subscribe('user_disabled', h));
        // Subscriptions are asynchronous in Redis: give them a moment to register.
        await new Promise((r) => setTimeout(r, 100));
        nodeA.publish('user_disabled', { userId: 42 });
        await expect(onB).resolves.toEqual({ userId: 42 });
        await expect(onA).resolves.toEqual({ userId: 42 });
        expect(nodeA.healthy()).toBe(true);
      } finally {
        await nodeA.close();
        await nodeB.close();
      }
    });
  });
}
