import { describe, expect, it, vi } from 'vitest';
import { startFaultProxy } from '../test/fault-proxy.js';
import { type Bus, type BusEvents, MemoryBus } from './bus.js';
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

  it('is always healthy: it never reports a change of health and never asks for a resync', () => {
    const bus = new MemoryBus();
    const changes: boolean[] = [];
    const resyncs: unknown[] = [];
    bus.onHealthChange((up) => changes.push(up));
    bus.subscribe('resync', (e) => resyncs.push(e));
    bus.publish('user_disabled', { userId: 1 });
    expect(bus.healthy()).toBe(true);
    expect(changes).toEqual([]);
    expect(resyncs).toEqual([]);
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

  // docs/operations.md#redis-outages-and-leadership
  describe('redis bus through an outage', () => {
    it('survives a cut: no unhandled error, local delivery while down, reconnects and announces a resync', async () => {
      const target = new URL(redisUrl);
      const proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 6379) });
      const unhandled: unknown[] = [];
      const onUnhandled = (err: unknown) => unhandled.push(err);
      process.on('unhandledRejection', onUnhandled);
      process.on('uncaughtException', onUnhandled);
      const prefix = `pipdesk-bus-outage-${process.pid}:`;
      const proxied = new URL(redisUrl);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      const cutNode = await createRedisBus(proxied.toString(), prefix);
      const otherNode = await createRedisBus(redisUrl, prefix);
      try {
        const health: boolean[] = [];
        cutNode.onHealthChange((up) => health.push(up));
        const onCut: number[] = [];
        const onOther: number[] = [];
        cutNode.subscribe('user_disabled', (e) => onCut.push(e.userId));
        otherNode.subscribe('user_disabled', (e) => onOther.push(e.userId));
        const resyncsOnCut: BusEvents['resync'][] = [];
        const resyncsOnOther: BusEvents['resync'][] = [];
        cutNode.subscribe('resync', (e) => resyncsOnCut.push(e));
        otherNode.subscribe('resync', (e) => resyncsOnOther.push(e));
        await vi.waitFor(
          () => {
            cutNode.publish('user_disabled', { userId: 1 });
            expect(onOther).toContain(1);
          },
          { timeout: 3_000, interval: 100 },
        );

        proxy.cut();
        await vi.waitFor(() => expect(cutNode.healthy()).toBe(false), { timeout: 3_000, interval: 20 });
        expect(health).toEqual([false]);
        // Publishing while down neither throws nor rejects later; this node still hears itself.
        for (let i = 0; i < 50; i++) cutNode.publish('user_disabled', { userId: 2 });
        expect(onCut.filter((id) => id === 2)).toHaveLength(50);
        // Longer than ioredis needs to give up on queued commands (the MaxRetriesPerRequestError).
        await new Promise((r) => setTimeout(r, 1_500));
        expect(onOther).not.toContain(2);
        expect(unhandled).toEqual([]);

        proxy.heal();
        await vi.waitFor(() => expect(cutNode.healthy()).toBe(true), { timeout: 10_000, interval: 50 });
        expect(health).toEqual([false, true]);
        expect(resyncsOnCut).toHaveLength(1);
        await vi.waitFor(() => expect(resyncsOnOther).toEqual(resyncsOnCut), { timeout: 3_000, interval: 20 });
        // Both ways again, and this node hears itself once (through Redis, not twice).
        cutNode.publish('user_disabled', { userId: 3 });
        otherNode.publish('user_disabled', { userId: 4 });
        await vi.waitFor(
          () => {
            expect(onOther).toContain(3);
            expect(onCut).toContain(4);
          },
          { timeout: 3_000, interval: 20 },
        );
        await new Promise((r) => setTimeout(r, 100));
        expect(onCut.filter((id) => id === 3)).toHaveLength(1);
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
        process.off('uncaughtException', onUnhandled);
        await cutNode.close();
        await otherNode.close();
        await proxy.close();
      }
    }, 30_000);
  });
}
