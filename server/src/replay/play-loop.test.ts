import { replayAnswerSchema, replayDetailSchema, replayListSchema } from '@pipdesk/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertSignedInTrader } from '../test/factories.js';
import type { TestApp } from '../test/helpers.js';
import { replaySuiteApp } from '../test/replay.js';
import { TradingSocketClient as Client } from '../test/trading-socket-client.js';
import { PAUSE_UNWATCHED_MS, PLAY_EVERY_MS } from './play-loop.js';
import { saveClocks } from './repo.js';

/**
 * The play loop (docs/replay.md#playing): a playing session moves by its speed × real time only
 * while a trading socket serves its practice account (DESIGN §19 "Scale"); the time nobody
 * watches is not played, and a session nobody has watched for a while is paused, and shown so.
 */

const START = Date.UTC(2023, 3, 4, 7, 0, 0);
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Long enough for the loop to take a few turns. */
const TURNS = () => sleep(PLAY_EVERY_MS * 3);

describe('the play loop', () => {
  const suite = replaySuiteApp({ listen: true });
  const { clock } = suite;
  let t: TestApp;
  beforeAll(() => {
    t = suite.app();
  });

  /** The session as written in `replay_sessions`. */
  const storedRow = async (id: number) => {
    const row = await t.ctx.db.kysely
      .selectFrom('replay_sessions')
      .select(['clock', 'status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return { clock: Number(row.clock), status: row.status };
  };
  /** The clock as written. */
  const stored = async (id: number) => (await storedRow(id)).clock;

  async function session() {
    const me = await insertSignedInTrader(t);
    const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: me.headers, ...(payload ? { payload } : {}) });
    const created = await call('POST', '/api/trading/replays/', { symbols: ['EURUSD'], start: iso(START) });
    expect(created.statusCode, created.body).toBe(201);
    const replay = replayAnswerSchema.parse(created.json().data).replay;
    const url = `/api/trading/replays/${replay.id}/`;
    const shown = async () => replayDetailSchema.parse((await call('GET', url)).json().data).replay;
    const listed = async () => replayListSchema.parse((await call('GET', '/api/trading/replays/')).json().data).replays[0]!;
    const until = async (ok: () => Promise<boolean>) => {
      const deadline = Date.now() + 5_000;
      while (!(await ok()) && Date.now() < deadline) await sleep(50);
    };
    return { me, call, replay, url, shown, listed, until };
  }

  it('does not move a session nobody watches, moves it at its speed while a socket serves its account, and not once paused', async () => {
    const { me, call, replay, url, shown, until } = await session();
    expect((await call('POST', `${url}play/`, { speed: 60 })).statusCode).toBe(200);
    // A real minute with no socket: nothing is played, and that time is not owed later.
    clock.advance(60_000);
    await TURNS();
    expect((await shown()).clock).toBe(iso(START));

    const socket = await Client.signedIn(t, me.token, replay.account_id);
    await TURNS();
    expect((await shown()).clock).toBe(iso(START));
    // One real minute at 60× with the socket open: an hour of the session.
    clock.advance(60_000);
    await until(async () => (await shown()).clock === iso(START + HOUR));
    expect((await shown()).clock).toBe(iso(START + HOUR));
    await socket.next('price_update', { where: (m) => m.symbol === 'EURUSD' });
    // The loop's turn writes the clock it played to (a restart resumes there).
    await until(async () => (await stored(replay.id)) === START + HOUR);
    expect(await stored(replay.id)).toBe(START + HOUR);

    const paused = await call('POST', `${url}pause/`);
    expect(replayAnswerSchema.parse(paused.json().data).replay.status).toBe('paused');
    clock.advance(60_000);
    await TURNS();
    expect((await shown()).clock).toBe(iso(START + HOUR));
    socket.close();
  });

  it('pauses a playing session once its last socket has been closed a while, and saves it paused', async () => {
    const { me, call, replay, url, shown, listed, until } = await session();
    const socket = await Client.signedIn(t, me.token, replay.account_id);
    expect((await call('POST', `${url}play/`, { speed: 60 })).statusCode).toBe(200);
    clock.advance(60_000);
    await until(async () => (await shown()).clock === iso(START + HOUR));
    socket.close();
    await socket.closed;
    await TURNS();
    // Gone for less than the wait: still playing, and not moving.
    clock.advance(PAUSE_UNWATCHED_MS - 1_000);
    await TURNS();
    expect(await shown()).toMatchObject({ status: 'playing', clock: iso(START + HOUR) });
    clock.advance(1_000);
    await until(async () => (await listed()).status === 'paused');
    expect(await listed()).toMatchObject({ id: replay.id, status: 'paused', clock: iso(START + HOUR) });
    // Saved so: another node, or this one after a restart, shows it paused where it stood.
    expect(await storedRow(replay.id)).toMatchObject({ status: 'paused', clock: START + HOUR });

    // Back: nothing jumps, and it plays again only when asked.
    const back = await Client.signedIn(t, me.token, replay.account_id);
    clock.advance(60_000);
    await TURNS();
    expect(await shown()).toMatchObject({ status: 'paused', clock: iso(START + HOUR) });
    back.close();
  });

  it('writes a turn’s clocks in one statement without moving back a clock a control wrote further', async () => {
    const a = await session();
    const b = await session();
    expect((await a.call('POST', `${a.url}step/`, { minutes: 120 })).statusCode).toBe(200);
    // A turn that moved both, finishing after a's step was written.
    await saveClocks(
      t.ctx.db.kysely,
      [
        { id: a.replay.id, clock: START + HOUR },
        { id: b.replay.id, clock: START + HOUR },
      ],
      clock.now(),
    );
    expect(await stored(a.replay.id)).toBe(START + 2 * HOUR);
    expect(await stored(b.replay.id)).toBe(START + HOUR);
  });
});
