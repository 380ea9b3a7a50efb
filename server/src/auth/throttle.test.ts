import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { freshDatabase, startTestApp, type TestApp } from '../test/helpers.js';
import { addTrader } from '../test/traders.js';

const WINDOW_MINUTES = 15;
const env = {
  LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
  LOGIN_MAX_FAILURES_PER_ADDRESS: '5',
  LOGIN_THROTTLE_WINDOW_MINUTES: String(WINDOW_MINUTES),
};

describe('throttling of failed sign-ins', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function start(options: { clock: ManualClock; dataDir?: string; pgSchema?: string; keep?: boolean }) {
    const t = await startTestApp({ env, ...options });
    cleanups.push(() => t.close());
    return t;
  }

  // Each call from its own address unless told, so only the throttle under test can trigger.
  let nextAddress = 1;
  const login = (t: TestApp, email: string, password: string, remoteAddress = `10.1.0.${nextAddress++}`) =>
    t.app.inject({ method: 'POST', url: '/api/auth/login/', payload: { email, password }, remoteAddress });

  it('per account: after 3 failures even the right password gets 429 saying when to retry, until the window passes', async () => {
    const clock = new ManualClock();
    const t = await start({ clock });
    const trader = await addTrader(t);
    for (let i = 0; i < 3; i++) {
      expect((await login(t, trader.email, 'wrong-password')).statusCode).toBe(401);
      clock.advance(60_000);
    }
    const blocked = await login(t, trader.email, trader.password);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({
      success: false,
      code: 'TOO_MANY_REQUESTS',
      // The oldest failure leaves the 15-minute window in 12 minutes.
      error: 'Too many attempts. Try again in 12 minutes.',
      details: { retry_after_seconds: 12 * 60 },
    });
    expect(blocked.headers['retry-after']).toBe(String(12 * 60));
    // The e-mail is throttled in any letter case.
    expect((await login(t, trader.email.toUpperCase(), trader.password)).statusCode).toBe(429);

    clock.advance(12 * 60 * 1000 - 1000);
    expect((await login(t, trader.email, trader.password)).statusCode).toBe(429);
    clock.advance(1000);
    expect((await login(t, trader.email, trader.password)).statusCode).toBe(200);
  });

  it('gives an unknown e-mail exactly the same answers as an existing one', async () => {
    const clock = new ManualClock();
    const t = await start({ clock });
    const trader = await addTrader(t);
    const ghost = 'nobody-at-all@example.com';
    const answers = { known: [] as string[], unknown: [] as string[] };
    for (let i = 0; i < 5; i++) {
      const known = await login(t, trader.email, 'wrong-password');
      const unknown = await login(t, ghost, 'wrong-password');
      answers.known.push(`${known.statusCode} ${known.body}`);
      answers.unknown.push(`${unknown.statusCode} ${unknown.body}`);
    }
    expect(answers.unknown).toEqual(answers.known);
    expect(answers.known.map((a) => a.slice(0, 3))).toEqual(['401', '401', '401', '429', '429']);
  });

  it('a successful sign-in clears the account counter', async () => {
    const clock = new ManualClock();
    const t = await start({ clock });
    const trader = await addTrader(t);
    for (let i = 0; i < 2; i++) expect((await login(t, trader.email, 'wrong-password')).statusCode).toBe(401);
    expect((await login(t, trader.email, trader.password)).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await login(t, trader.email, 'wrong-password')).statusCode).toBe(401);
    expect((await login(t, trader.email, trader.password)).statusCode).toBe(200);
  });

  it('per address: 5 failures on different e-mails block that address, not others', async () => {
    const clock = new ManualClock();
    const t = await start({ clock });
    const trader = await addTrader(t);
    const address = '192.0.2.7';
    for (let i = 0; i < 5; i++)
      expect((await login(t, `guess-${i}@example.com`, 'wrong-password', address)).statusCode).toBe(401);
    const blocked = await login(t, trader.email, trader.password, address);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toBe(`Too many attempts. Try again in ${WINDOW_MINUTES} minutes.`);
    expect((await login(t, trader.email, trader.password, '192.0.2.8')).statusCode).toBe(200);
  });

  it('concurrent guesses cannot slip past the limit: 8 at once, only 3 are checked', async () => {
    const clock = new ManualClock();
    const t = await start({ clock });
    const trader = await addTrader(t);
    const answers = await Promise.all(Array.from({ length: 8 }, () => login(t, trader.email, 'wrong-password')));
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
  });

  it('the counters survive a restart', async () => {
    const clock = new ManualClock();
    const db = await freshDatabase();
    cleanups.push(db.drop);
    const first = await start({ clock, dataDir: db.dataDir, ...(db.pgSchema ? { pgSchema: db.pgSchema } : {}), keep: true });
    const trader = await addTrader(first);
    for (let i = 0; i < 3; i++) expect((await login(first, trader.email, 'wrong-password')).statusCode).toBe(401);
    await first.close();

    const second = await start({ clock, dataDir: db.dataDir, ...(db.pgSchema ? { pgSchema: db.pgSchema } : {}), keep: true });
    const blocked = await login(second, trader.email, trader.password);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().details).toEqual({ retry_after_seconds: WINDOW_MINUTES * 60 });
    clock.advance(WINDOW_MINUTES * 60 * 1000);
    expect((await login(second, trader.email, trader.password)).statusCode).toBe(200);
  });
});
