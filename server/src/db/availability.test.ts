import { describe, expect, it } from 'vitest';
import { ConnectionBreaker, DatabaseUnavailableError, isDatabaseUnavailable, retryAfterSeconds } from './availability.js';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('recognises an unreachable or refusing server', () => {
    expect(isDatabaseUnavailable(withCode('ECONNREFUSED'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('ECONNRESET'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('08006'))).toBe(true); // connection failure
    expect(isDatabaseUnavailable(withCode('57P01'))).toBe(true); // admin shutdown
    expect(isDatabaseUnavailable(withCode('53300'))).toBe(true); // too many connections
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]))).toBe(true);
    expect(isDatabaseUnavailable(new DatabaseUnavailableError(2))).toBe(true);
  });

  it('leaves bugs and data errors alone (they stay 500s or their own answers)', () => {
    expect(isDatabaseUnavailable(withCode('23505', 'duplicate key'))).toBe(false);
    expect(isDatabaseUnavailable(withCode('40001', 'serialization failure'))).toBe(false);
    expect(isDatabaseUnavailable(withCode('42P01', 'relation does not exist'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(new AggregateError([withCode('ECONNREFUSED'), new Error('other')]))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });

  it('tells the client how long to wait', () => {
    expect(retryAfterSeconds(new DatabaseUnavailableError(3))).toBe(3);
    expect(retryAfterSeconds(withCode('ECONNRESET'))).toBe(1);
  });
});

describe('ConnectionBreaker', () => {
  const refused = () => Promise.reject(withCode('ECONNREFUSED'));
  const ok = () => Promise.resolve('connection');

  it('fails at once while open, lets one probe through per backoff step, doubling up to the cap', async () => {
    let now = 0;
    const breaker = new ConnectionBreaker({ now: () => now, initialDelayMs: 250, maxDelayMs: 1000 });
    let attempts = 0;
    const counted = () => {
      attempts += 1;
      return refused();
    };

    await expect(breaker.run(counted)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(attempts).toBe(1);
    // Within the wait: no attempt reaches the database.
    now = 249;
    await expect(breaker.run(counted)).rejects.toMatchObject({ retryAfterSeconds: 1 });
    expect(attempts).toBe(1);
    // The probes come after 250 ms, then 500, then 1000, then capped at 1000.
    for (const probeAt of [250, 750, 1750, 2750]) {
      const before = attempts;
      now = probeAt - 1;
      await expect(breaker.run(counted)).rejects.toBeInstanceOf(DatabaseUnavailableError);
      expect(attempts).toBe(before);
      now = probeAt;
      await expect(breaker.run(counted)).rejects.toBeInstanceOf(DatabaseUnavailableError);
      expect(attempts).toBe(before + 1);
    }
    expect(attempts).toBe(5);
  });

  it('closes on the first successful probe', async () => {
    let now = 0;
    const breaker = new ConnectionBreaker({ now: () => now, initialDelayMs: 100, maxDelayMs: 1000 });
    await expect(breaker.run(refused)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    now = 100;
    await expect(breaker.run(ok)).resolves.toBe('connection');
    // Closed again: the next failure starts over from the first step.
    await expect(breaker.run(ok)).resolves.toBe('connection');
    await expect(breaker.run(refused)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    now = 199;
    await expect(breaker.run(ok)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    now = 200;
    await expect(breaker.run(ok)).resolves.toBe('connection');
  });

  it('lets a single probe through at a time', async () => {
    let now = 0;
    const breaker = new ConnectionBreaker({ now: () => now, initialDelayMs: 100 });
    await expect(breaker.run(refused)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    now = 100;
    let finish: (value: string) => void = () => {};
    const probe = breaker.run(() => new Promise<string>((resolve) => (finish = resolve)));
    await expect(breaker.run(ok)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    finish('connection');
    await expect(probe).resolves.toBe('connection');
    await expect(breaker.run(ok)).resolves.toBe('connection');
  });

  it('does not open for a busy pool or for errors that are not an outage', async () => {
    const breaker = new ConnectionBreaker({ now: () => 0 });
    const busy = new Error('timeout exceeded when trying to connect');
    await expect(breaker.run(() => Promise.reject(busy))).rejects.toBe(busy);
    const bug = new TypeError('bad');
    await expect(breaker.run(() => Promise.reject(bug))).rejects.toBe(bug);
    await expect(breaker.run(ok)).resolves.toBe('connection');
  });
});

describe('ConnectionBreaker reports', () => {
  it('says once that the database is gone and once that it is back', async () => {
    let now = 0;
    const changes: boolean[] = [];
    const breaker = new ConnectionBreaker({
      now: () => now,
      initialDelayMs: 10,
      onChange: (reachable) => changes.push(reachable),
    });
    const refused = () => Promise.reject(withCode('ECONNREFUSED'));
    await expect(breaker.run(refused)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(breaker.run(refused)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    now = 10;
    await expect(breaker.run(refused)).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(changes).toEqual([false]);
    now = 100;
    await breaker.run(() => Promise.resolve(1));
    await breaker.run(() => Promise.resolve(1));
    expect(changes).toEqual([false, true]);
  });
});
