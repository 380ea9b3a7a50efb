// The built server (server/dist/main.js) with the replay play loop traced, for bench/replay.mjs:
// each loop turn's real time (the `now` the turn moves its sessions to) and each session move it
// starts (account, clock before, clock after; the loop's moves are `advance` with `byLoop`), kept in memory and written as JSON to
// BENCH_REPLAY_TRACE when the process exits. The bench matches every price_update a socket receives
// to the turn that played its tick. Nothing else changes: the wrappers call the originals.
import { writeFileSync } from 'node:fs';
import { dist } from './lib.mjs';

const out = process.env.BENCH_REPLAY_TRACE;
if (!out) throw new Error('BENCH_REPLAY_TRACE names the trace file');
const { ReplaySessions } = await dist('replay/sessions.js');
const { PlayLoop } = await dist('replay/play-loop.js');
const proto = ReplaySessions.prototype;
/** [turn time, account, from, until] per move started by the loop. */
const moves = [];
/** The real time of the turn that last took each session (by id): the `now` it moves the session to. */
const turnOf = new Map();
// A turn takes its sessions' leases first and moves them once the statement answers, so each
// session's turn time is kept at the turn and read back by the move the loop starts for it.
const turn = PlayLoop.prototype.turn;
PlayLoop.prototype.turn = function tracedTurn(watched, now) {
  for (const held of watched) turnOf.set(held.id, now);
  return turn.call(this, watched, now);
};
const advance = proto.advance;
proto.advance = async function tracedAdvance(held, until, byLoop) {
  if (!byLoop) return advance.call(this, held, until, byLoop);
  const at = turnOf.get(held.id) ?? Date.now();
  const from = held.market.clock;
  try {
    return await advance.call(this, held, until, byLoop);
  } finally {
    if (held.market.clock !== from) moves.push([at, held.accountId, from, held.market.clock]);
  }
};
process.on('exit', () => writeFileSync(out, JSON.stringify({ moves })));
await import('../server/dist/main.js');
