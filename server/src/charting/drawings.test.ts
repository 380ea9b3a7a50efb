import { type Drawing, drawingSchema, drawingsSchema, MAX_DRAWINGS_PER_PAIR } from '@pipdesk/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRole } from '../auth/service.js';
import { writeTransaction } from '../db/transaction.js';
import { insertSignedInTrader } from '../test/factories.js';
import { startTestApp, type TestApp } from '../test/helpers.js';
import * as repo from './repo.js';

// docs/charting.md#drawings: kept per trader and pair, another trader's is not found, at most
// MAX_DRAWINGS_PER_PAIR per pair, and an instructor reads a student's without changing them.

let t: TestApp;
type Who = Awaited<ReturnType<typeof insertSignedInTrader>>;

const call = (who: Who, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  t.app.inject({ method, url, headers: who.headers, ...(payload === undefined ? {} : { payload: payload as object }) });

const list = async (who: Who, symbol: string): Promise<Drawing[]> => {
  const res = await call(who, 'GET', `/api/trading/drawings/?symbol=${symbol}`);
  expect(res.statusCode, res.body).toBe(200);
  return drawingsSchema.parse(res.json().data);
};

const create = async (who: Who, body: Record<string, unknown>): Promise<Drawing> => {
  const res = await call(who, 'POST', '/api/trading/drawings/', body);
  expect(res.statusCode, res.body).toBe(201);
  return drawingSchema.parse(res.json().data);
};

const hline = (price: number) => ({ symbol: 'EURUSD', kind: 'hline', points: [{ time: 1_767_614_400_000, price }] });
const two = [
  { time: 1_767_614_400_000, price: 1.0843 },
  { time: 1_767_618_000_000, price: 1.0875 },
];

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('a trader’s drawings', () => {
  it('are created, listed oldest first, moved, restyled and deleted', async () => {
    const trader = await insertSignedInTrader(t);
    const line = await create(trader, { ...hline(1.08437), color: '#1f77b4' });
    expect(line).toMatchObject({ symbol: 'EURUSD', kind: 'hline', text: null, color: '#1f77b4' });
    expect(line.points).toEqual([{ time: 1_767_614_400_000, price: 1.08437 }]);
    expect(line.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    // The symbol in any case is the pair's; the price comes back exactly as sent.
    const fib = await create(trader, {
      symbol: 'usdjpy',
      kind: 'fib',
      points: [
        { time: 1, price: 149.123456789 },
        { time: 2, price: 151.5 },
      ],
    });
    expect(fib.symbol).toBe('USDJPY');
    expect(fib.points[0]!.price).toBe(149.123456789);
    const trend = await create(trader, { symbol: 'EURUSD', kind: 'trend', points: two });

    expect((await list(trader, 'eurusd')).map((d) => d.id)).toEqual([line.id, trend.id]);
    expect((await list(trader, 'USDJPY')).map((d) => d.id)).toEqual([fib.id]);

    const moved = await call(trader, 'PATCH', `/api/trading/drawings/${trend.id}/`, {
      points: [two[1], { time: 1_767_621_600_000, price: 1.09001 }],
      color: null,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data).toMatchObject({ id: trend.id, kind: 'trend', color: null });
    expect(moved.json().data.points[1]).toEqual({ time: 1_767_621_600_000, price: 1.09001 });
    const restyled = await call(trader, 'PATCH', `/api/trading/drawings/${line.id}/`, { color: '#ff0000' });
    // Fields left out keep their value.
    expect(restyled.json().data).toMatchObject({ color: '#ff0000', points: line.points });

    const deleted = await call(trader, 'DELETE', `/api/trading/drawings/${line.id}/`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().data).toEqual({ id: line.id });
    expect((await call(trader, 'DELETE', `/api/trading/drawings/${line.id}/`)).json().code).toBe('DRAWING_NOT_FOUND');
    expect((await list(trader, 'EURUSD')).map((d) => d.id)).toEqual([trend.id]);
  });

  it('are on active catalogue pairs only', async () => {
    const trader = await insertSignedInTrader(t);
    const created = await call(trader, 'POST', '/api/trading/drawings/', { ...hline(1.1), symbol: 'XAUUSD' });
    expect(created.statusCode).toBe(404);
    expect(created.json().code).toBe('PAIR_NOT_FOUND');
    expect((await call(trader, 'GET', '/api/trading/drawings/?symbol=XAUUSD')).json().code).toBe('PAIR_NOT_FOUND');
    expect((await call(trader, 'GET', '/api/trading/drawings/')).statusCode).toBe(400);
  });

  it('have one point for a horizontal line or a note and two for the others, on PATCH too', async () => {
    const trader = await insertSignedInTrader(t);
    const one = [two[0]];
    for (const [kind, wanted] of [
      ['hline', 1],
      ['text', 1],
      ['trend', 2],
      ['ray', 2],
      ['rect', 2],
      ['fib', 2],
    ] as const) {
      const text = kind === 'text' ? { text: 'Support' } : {};
      const wrong = await call(trader, 'POST', '/api/trading/drawings/', {
        symbol: 'EURUSD',
        kind,
        points: wanted === 1 ? two : one,
        ...text,
      });
      expect(wrong.statusCode, kind).toBe(400);
      expect(wrong.json().details, kind).toEqual([{ field: 'points', message: expect.stringContaining(`exactly ${wanted}`) }]);
      const made = await create(trader, { symbol: 'EURUSD', kind, points: wanted === 1 ? one : two, ...text });
      const patched = await call(trader, 'PATCH', `/api/trading/drawings/${made.id}/`, { points: wanted === 1 ? two : one });
      expect(patched.statusCode, kind).toBe(400);
      expect(patched.json().details, kind).toEqual([{ field: 'points', message: expect.stringContaining(`exactly ${wanted}`) }]);
    }
    // A note needs its text, when made and when changed.
    const bare = await call(trader, 'POST', '/api/trading/drawings/', { symbol: 'EURUSD', kind: 'text', points: one });
    expect(bare.json().details[0].field).toBe('text');
    const note = await create(trader, { symbol: 'EURUSD', kind: 'text', points: one, text: '  Entry here  ' });
    expect(note.text).toBe('Entry here');
    const cleared = await call(trader, 'PATCH', `/api/trading/drawings/${note.id}/`, { text: null });
    expect(cleared.statusCode).toBe(400);
    expect(cleared.json().details[0].field).toBe('text');
    expect((await call(trader, 'PATCH', `/api/trading/drawings/${note.id}/`, {})).statusCode).toBe(400);
    expect((await call(trader, 'PATCH', `/api/trading/drawings/${note.id}/`, { color: 'blue' })).statusCode).toBe(400);
  });

  it('of another trader are not found: not listed, not changed, not deleted', async () => {
    const alice = await insertSignedInTrader(t);
    const bob = await insertSignedInTrader(t);
    const hers = await create(alice, hline(1.07));
    expect(await list(bob, 'EURUSD')).toEqual([]);
    const patched = await call(bob, 'PATCH', `/api/trading/drawings/${hers.id}/`, { color: '#000000' });
    expect(patched.statusCode).toBe(404);
    expect(patched.json().code).toBe('DRAWING_NOT_FOUND');
    const deleted = await call(bob, 'DELETE', `/api/trading/drawings/${hers.id}/`);
    expect(deleted.statusCode).toBe(404);
    expect(deleted.json().code).toBe('DRAWING_NOT_FOUND');
    expect(await list(alice, 'EURUSD')).toEqual([hers]);
    expect((await call(bob, 'DELETE', '/api/trading/drawings/0/')).json().code).toBe('DRAWING_NOT_FOUND');
  });

  it(`are at most ${MAX_DRAWINGS_PER_PAIR} per pair: the next is 409 LIMIT_REACHED, another pair is free`, async () => {
    const trader = await insertSignedInTrader(t);
    const other = await insertSignedInTrader(t);
    const now = Date.now();
    await writeTransaction(t.ctx.db, async (trx) => {
      for (let i = 0; i < MAX_DRAWINGS_PER_PAIR - 1; i++) {
        await repo.insertDrawing(trx, {
          user_id: trader.userId,
          symbol: 'GBPUSD',
          kind: 'hline',
          points: JSON.stringify([{ time: i, price: 1.2 + i / 10_000 }]),
          text: null,
          color: null,
          created_at: now,
          updated_at: now,
        });
      }
    });
    await create(trader, { ...hline(1.27), symbol: 'GBPUSD' });
    const over = await call(trader, 'POST', '/api/trading/drawings/', { ...hline(1.28), symbol: 'GBPUSD' });
    expect(over.statusCode).toBe(409);
    expect(over.json().code).toBe('LIMIT_REACHED');
    expect((await list(trader, 'GBPUSD')).length).toBe(MAX_DRAWINGS_PER_PAIR);
    await create(trader, hline(1.1));
    await create(other, { ...hline(1.27), symbol: 'GBPUSD' });
    // Deleting one makes room again.
    const [first] = await list(trader, 'GBPUSD');
    expect((await call(trader, 'DELETE', `/api/trading/drawings/${first!.id}/`)).statusCode).toBe(200);
    await create(trader, { ...hline(1.28), symbol: 'GBPUSD' });
  });

  it('never pass the limit when created at once', async () => {
    const trader = await insertSignedInTrader(t);
    const now = Date.now();
    await writeTransaction(t.ctx.db, async (trx) => {
      for (let i = 0; i < MAX_DRAWINGS_PER_PAIR - 3; i++) {
        await repo.insertDrawing(trx, {
          user_id: trader.userId,
          symbol: 'AUDUSD',
          kind: 'hline',
          points: JSON.stringify([{ time: i, price: 0.66 }]),
          text: null,
          color: null,
          created_at: now,
          updated_at: now,
        });
      }
    });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => call(trader, 'POST', '/api/trading/drawings/', { ...hline(0.67), symbol: 'AUDUSD' })),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
    expect((await list(trader, 'AUDUSD')).length).toBe(MAX_DRAWINGS_PER_PAIR);
  });
});

describe('a student’s drawings, read-only (docs/academy.md#scope)', () => {
  it('are seen by admins and the student’s instructors; a trader is 403, another instructor 404', async () => {
    const student = await insertSignedInTrader(t);
    const teacher = await insertSignedInTrader(t, { withAccount: false });
    const stranger = await insertSignedInTrader(t, { withAccount: false });
    const admin = await insertSignedInTrader(t, { withAccount: false });
    await setRole(t.ctx, teacher.email, 'instructor');
    await setRole(t.ctx, stranger.email, 'instructor');
    await setRole(t.ctx, admin.email, 'admin');
    await writeTransaction(t.ctx.db, async (trx) => {
      const now = Date.now();
      const cohort = await trx
        .insertInto('cohorts')
        .values({
          name: 'Charts',
          description: '',
          starting_balance_minor: 1_000_000,
          leverage: 100,
          starts_at: null,
          ends_at: null,
          allow_self_reset: 0,
          status: 'active',
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = Number(cohort.id);
      await trx.insertInto('cohort_instructors').values({ cohort_id: id, user_id: teacher.userId, added_at: now }).execute();
      await trx
        .insertInto('cohort_members')
        .values({ cohort_id: id, user_id: student.userId, added_at: now, active: 1 })
        .execute();
    });
    const drawing = await create(student, hline(1.0812));
    const url = `/api/academy/students/${student.userId}/drawings/?symbol=eurusd`;

    for (const reader of [teacher, admin]) {
      const res = await call(reader, 'GET', url);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual([drawing]);
    }
    expect((await call(stranger, 'GET', url)).json().code).toBe('STUDENT_NOT_FOUND');
    const asTrader = await call(student, 'GET', url);
    expect(asTrader.statusCode).toBe(403);
    expect(asTrader.json().code).toBe('FORBIDDEN');
    expect((await call(teacher, 'GET', '/api/academy/students/999999999/drawings/?symbol=EURUSD')).statusCode).toBe(404);
    // Read-only: the drawing is the student's, so the instructor's own calls do not find it.
    expect((await call(teacher, 'PATCH', `/api/trading/drawings/${drawing.id}/`, { color: '#000000' })).statusCode).toBe(404);
    expect((await call(teacher, 'DELETE', `/api/trading/drawings/${drawing.id}/`)).statusCode).toBe(404);
    expect(await list(student, 'EURUSD')).toEqual([drawing]);
  });
});
