import { journalEntrySchema, journalPageSchema, journalTagsSchema } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTransaction } from '../../db/transaction.js';
import { insertSignedInTrader } from '../../test/factories.js';
import { startTestApp, type TestApp } from '../../test/helpers.js';
import { placeFilledMarketOrder, scriptedMarket, type SignedInTrader as Trader } from '../../test/scripted-trading.js';

let t: TestApp;
const { prices, clock, quote, advance } = scriptedMarket();

async function order(trader: Trader, symbol: string, side: 'BUY' | 'SELL', quantity: number): Promise<number> {
  advance(1000);
  return placeFilledMarketOrder(t, trader, { symbol, side, quantity });
}

const call = (trader: Trader | null, method: 'GET' | 'PUT', url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: trader ? trader.headers : {},
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

/** The trade ids of the trader's executions, oldest first. */
async function tradeIds(trader: Trader): Promise<number[]> {
  const rows = await t.ctx.db.kysely
    .selectFrom('trades')
    .select('id')
    .where('account_id', '=', trader.accountId!)
    .orderBy('id')
    .execute();
  return rows.map((r) => Number(r.id));
}

let alice: Trader;
let bob: Trader;
/** Alice's closed trades, oldest first: EURUSD, EURUSD, USDJPY. */
let closed: number[];
let opening: number;

beforeAll(async () => {
  // Dozens of orders and edits a second from one trader: the rate limits are tested where they live.
  t = await startTestApp({ priceSource: prices, clock, env: { ACCESS_TOKEN_TTL_MINUTES: '1000000', RATE_LIMITS: 'false' } });
  quote('EURUSD', 1.085);
  quote('USDJPY', 150);
  alice = await insertSignedInTrader(t);
  bob = await insertSignedInTrader(t);
  await order(alice, 'EURUSD', 'BUY', 0.3);
  await order(alice, 'EURUSD', 'SELL', 0.1);
  await order(alice, 'EURUSD', 'SELL', 0.2);
  await order(alice, 'USDJPY', 'SELL', 0.1);
  await order(alice, 'USDJPY', 'BUY', 0.1);
  const ids = await tradeIds(alice);
  opening = ids[0]!;
  closed = [ids[1]!, ids[2]!, ids[4]!];
});
afterAll(async () => {
  await t.close();
});

describe('GET trading/journal/', () => {
  it('lists the closed trades newest first, with an empty entry each', async () => {
    const res = await call(alice, 'GET', '/api/trading/journal/');
    expect(res.statusCode, res.body).toBe(200);
    const page = journalPageSchema.parse(res.json());
    expect(page.count).toBe(3);
    expect(page.next).toBeNull();
    expect(page.previous).toBeNull();
    expect(page.results.map((e) => e.trade.id)).toEqual([...closed].reverse());
    expect(page.results[0]).toMatchObject({ note: '', tags: [], rating: null, comments: [] });
    expect(page.results[0]!.trade).toMatchObject({ fx_pair_symbol: 'USDJPY', side: 'BUY', quantity: 0.1 });
  });

  it('is the trader’s own: another trader sees an empty journal', async () => {
    const page = journalPageSchema.parse((await call(bob, 'GET', '/api/trading/journal/')).json());
    expect(page).toEqual({ count: 0, next: null, previous: null, results: [] });
  });

  it('rejects bad filters with 400 naming the field', async () => {
    for (const [query, field] of [
      ['symbol=EUR', 'symbol'],
      ['page=0', 'page'],
      ['page=x', 'page'],
      [`tag=${'x'.repeat(33)}`, 'tag'],
      ['colour=red', 'colour'],
    ] as const) {
      const res = await call(alice, 'GET', `/api/trading/journal/?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().details[0].field, query).toBe(field);
    }
  });
});

describe('PUT trading/journal/{tradeId}/', () => {
  it('saves note, tags and rating, and the journal shows them', async () => {
    const res = await call(alice, 'PUT', `/api/trading/journal/${closed[0]}/`, {
      note: 'Took profit too early — the plan said 20 pips. 日本 🙂',
      tags: [' breakout ', 'early-exit', 'breakout'],
      rating: 4,
    });
    expect(res.statusCode, res.body).toBe(200);
    const entry = journalEntrySchema.parse(res.json().data);
    expect(entry).toMatchObject({
      note: 'Took profit too early — the plan said 20 pips. 日本 🙂',
      tags: ['breakout', 'early-exit'],
      rating: 4,
      comments: [],
    });
    expect(entry.trade.id).toBe(closed[0]);
    const page = journalPageSchema.parse((await call(alice, 'GET', '/api/trading/journal/')).json());
    expect(page.results.find((e) => e.trade.id === closed[0])).toEqual(entry);
  });

  it('changes only the fields sent; null clears the rating', async () => {
    await call(alice, 'PUT', `/api/trading/journal/${closed[1]}/`, { note: 'first', tags: ['a'], rating: 2 });
    const res = await call(alice, 'PUT', `/api/trading/journal/${closed[1]}/`, { rating: null });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ note: 'first', tags: ['a'], rating: null });
    const cleared = await call(alice, 'PUT', `/api/trading/journal/${closed[1]}/`, { tags: [], note: '' });
    expect(cleared.json().data).toMatchObject({ note: '', tags: [], rating: null });
  });

  it('answers 400 naming the field and saves nothing of a bad request', async () => {
    const id = closed[2]!;
    await call(alice, 'PUT', `/api/trading/journal/${id}/`, { note: 'kept', tags: ['kept'], rating: 3 });
    const cases: Array<[unknown, string]> = [
      [{ note: 'x'.repeat(5001), rating: 5 }, 'note'],
      [{ note: 'bad\u0000byte' }, 'note'],
      [{ note: 'lone \uD800 surrogate' }, 'note'],
      [{ note: 42 }, 'note'],
      [{ tags: Array.from({ length: 11 }, (_, i) => `t${i}`), note: 'changed' }, 'tags'],
      [{ tags: ['x'.repeat(33)] }, 'tags.0'],
      [{ tags: ['ok', '  '] }, 'tags.1'],
      [{ tags: 'breakout' }, 'tags'],
      [{ rating: 0 }, 'rating'],
      [{ rating: 6 }, 'rating'],
      [{ rating: 2.5 }, 'rating'],
      [{ rating: '5' }, 'rating'],
      [{ note: 'ok', colour: 'red' }, 'colour'],
      [{}, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await call(alice, 'PUT', `/api/trading/journal/${id}/`, body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_ERROR');
      expect(res.json().details[0].field, JSON.stringify(body).slice(0, 60)).toBe(field);
    }
    // Exactly at the limits is fine.
    const limits = await call(alice, 'PUT', `/api/trading/journal/${id}/`, {
      note: 'n'.repeat(5000),
      tags: Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(32, 'x')),
      rating: 5,
    });
    expect(limits.statusCode, limits.body).toBe(200);
    await call(alice, 'PUT', `/api/trading/journal/${id}/`, { note: 'kept', tags: ['kept'], rating: 3 });
    const page = journalPageSchema.parse((await call(alice, 'GET', '/api/trading/journal/')).json());
    expect(page.results.find((e) => e.trade.id === id)).toMatchObject({ note: 'kept', tags: ['kept'], rating: 3 });
  });

  it('answers 404 for another trader’s trade, an opening execution and an unknown id, and changes nothing', async () => {
    const theirs = await call(bob, 'PUT', `/api/trading/journal/${closed[0]}/`, { note: 'mine now' });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().code).toBe('NOT_FOUND');
    for (const id of [String(opening), '999999', 'abc', '0', '-1']) {
      expect((await call(alice, 'PUT', `/api/trading/journal/${id}/`, { note: 'x' })).statusCode, id).toBe(404);
    }
    expect((await call(null, 'PUT', `/api/trading/journal/${closed[0]}/`, { note: 'x' })).statusCode).toBe(401);
    const page = journalPageSchema.parse((await call(alice, 'GET', '/api/trading/journal/')).json());
    expect(page.results.find((e) => e.trade.id === closed[0])!.note).toContain('Took profit too early');
  });
});

describe('filters, pages and tags', () => {
  let carol: Trader;
  beforeAll(async () => {
    carol = await insertSignedInTrader(t);
    // 25 closed EURUSD trades and 3 closed USDJPY ones.
    for (let i = 0; i < 25; i++) {
      await order(carol, 'EURUSD', 'BUY', 0.01);
      await order(carol, 'EURUSD', 'SELL', 0.01);
    }
    for (let i = 0; i < 3; i++) {
      await order(carol, 'USDJPY', 'BUY', 0.01);
      await order(carol, 'USDJPY', 'SELL', 0.01);
    }
  });

  it('pages by 20 with links that keep the query', async () => {
    const first = journalPageSchema.parse((await call(carol, 'GET', '/api/trading/journal/?symbol=eurusd')).json());
    expect(first.count).toBe(25);
    expect(first.results).toHaveLength(20);
    expect(first.results.every((e) => e.trade.fx_pair_symbol === 'EURUSD')).toBe(true);
    expect(first.next).toBe('/api/trading/journal/?symbol=eurusd&page=2');
    const second = journalPageSchema.parse((await call(carol, 'GET', first.next!)).json());
    expect(second.results).toHaveLength(5);
    expect(second.next).toBeNull();
    expect(second.previous).toBe('/api/trading/journal/?symbol=eurusd&page=1');
    const ids = [...first.results, ...second.results].map((e) => e.trade.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    const all = journalPageSchema.parse((await call(carol, 'GET', '/api/trading/journal/')).json());
    expect(all.count).toBe(28);
    expect(all.results[0]!.trade.fx_pair_symbol).toBe('USDJPY');
    const beyond = journalPageSchema.parse((await call(carol, 'GET', '/api/trading/journal/?page=9')).json());
    expect(beyond).toMatchObject({ count: 28, next: null, results: [] });
  });

  it('filters by tag, alone and with a symbol, and suggests the trader’s tags', async () => {
    const page = journalPageSchema.parse((await call(carol, 'GET', '/api/trading/journal/')).json());
    const usdjpy = page.results.filter((e) => e.trade.fx_pair_symbol === 'USDJPY').map((e) => e.trade.id);
    const eurusd = page.results.filter((e) => e.trade.fx_pair_symbol === 'EURUSD').map((e) => e.trade.id);
    for (const id of [usdjpy[0]!, eurusd[0]!, eurusd[1]!]) {
      expect((await call(carol, 'PUT', `/api/trading/journal/${id}/`, { tags: ['revenge', 'news'] })).statusCode).toBe(200);
    }
    await call(carol, 'PUT', `/api/trading/journal/${eurusd[2]}/`, { tags: ['news'] });
    const revenge = journalPageSchema.parse((await call(carol, 'GET', '/api/trading/journal/?tag=revenge')).json());
    expect(revenge.count).toBe(3);
    expect(revenge.results.map((e) => e.trade.id)).toEqual([usdjpy[0], eurusd[0], eurusd[1]]);
    const both = journalPageSchema.parse((await call(carol, 'GET', '/api/trading/journal/?tag=revenge&symbol=EURUSD')).json());
    expect(both.count).toBe(2);
    expect(both.results.map((e) => e.trade.id)).toEqual([eurusd[0], eurusd[1]]);
    const none = journalPageSchema.parse((await call(carol, 'GET', '/api/trading/journal/?tag=fomo')).json());
    expect(none).toMatchObject({ count: 0, results: [] });
    // Alice's tags are hers: Carol's filter never finds them, and the suggestions are Carol's only.
    expect(journalPageSchema.parse((await call(carol, 'GET', '/api/trading/journal/?tag=breakout')).json()).count).toBe(0);
    const tags = journalTagsSchema.parse((await call(carol, 'GET', '/api/trading/journal/tags/')).json().data);
    expect(tags).toEqual(['news', 'revenge']);
  });

  it('shows instructors’ comments, oldest first', async () => {
    const page = journalPageSchema.parse((await call(carol, 'GET', '/api/trading/journal/')).json());
    const id = page.results[0]!.trade.id;
    // The academy's call writes comments; here they go straight in.
    const instructor = await insertSignedInTrader(t, { withAccount: false });
    await writeTransaction(t.ctx.db, async (trx) => {
      await trx
        .insertInto('journal_comments')
        .values([
          { trade_id: id, author_user_id: instructor.userId, text: 'Where was your stop?', created_at: clock.now() },
          { trade_id: id, author_user_id: instructor.userId, text: 'Better.', created_at: clock.now() + 1 },
        ])
        .execute();
    });
    const after = journalPageSchema.parse((await call(carol, 'GET', '/api/trading/journal/')).json());
    expect(after.results[0]!.comments).toMatchObject([
      { author: { id: instructor.userId, full_name: instructor.fullName }, text: 'Where was your stop?' },
      { text: 'Better.' },
    ]);
  });
});
