/**
 * A token bucket: `capacity` messages at once, refilled at `perSecond`. One per socket
 * connection, so a client flooding the trading socket is cut off without affecting others.
 * Time comes from the caller (epoch or monotonic ms) so tests drive it by hand.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.updatedAt = now;
  }

  /** Takes one token; false when the bucket is empty (the message is over the limit). */
  take(now: number): boolean {
    const elapsed = now - this.updatedAt;
    if (elapsed > 0) {
      this.tokens = Math.min(this.capacity, this.tokens + (elapsed * this.perSecond) / 1000);
      this.updatedAt = now;
    }
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
