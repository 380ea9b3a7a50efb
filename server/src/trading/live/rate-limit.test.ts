import { describe, expect, it } from 'vitest';
import { TokenBucket } from './rate-limit.js';

describe('TokenBucket', () => {
  it('allows a burst up to its capacity, then refuses until time refills it', () => {
    const bucket = new TokenBucket(3, 2, 1_000);
    expect([bucket.take(1_000), bucket.take(1_000), bucket.take(1_000), bucket.take(1_000)]).toEqual([true, true, true, false]);
    // 2 per second: one token back after 500 ms, not before.
    expect(bucket.take(1_499)).toBe(false);
    expect(bucket.take(1_500)).toBe(true);
    expect(bucket.take(1_500)).toBe(false);
  });

  it('never holds more than its capacity after a long pause', () => {
    const bucket = new TokenBucket(2, 10, 0);
    const taken = Array.from({ length: 5 }, () => bucket.take(60_000)).filter(Boolean).length;
    expect(taken).toBe(2);
  });
});
