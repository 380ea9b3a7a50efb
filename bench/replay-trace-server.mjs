// The built server (server/dist/main.js) with the replay play loop traced, for bench/replay.mjs:
// each loop turn's real time (the `now` the turn moves its sessions to) and each session move it
// starts (account, clock before, clock after), kept in memory and written as JSON to
// BENCH_REPLAY_TRACE when the process exits. The bench matches every price_update a socket receives
// to the turn that played its tick. Nothing else changes: the wrappers call the originals.
import { writeFileSync } from 'node:fs';
import { dist } from './lib.mjs';

const out = process.env.BENCH_REPLAY_TRACE;
if (!out) throw new Error('BENCH_REPLAY_TRACE names the trace file');
const { ReplaySessions } = await dist('replay/sessions.js');
const proto = ReplaySessions.prototype;
/** [turn time, account, from, until] per move started by the loop. */
const moves = [];
let turnAt = 0;
let inTurn = false;
const playDue = proto.playDue;
proto.playDue = function tracedPlayDue() {
  turnAt = Date.now();
  inTurn = true;
  try {
    return playDue.call(this);
  } finally {
    inTurn = false;
  }
};
// playDue queues each move (run → then): the move reads its session's clock when it starts, so
// the turn's time is taken from the queue callback's closure, captured here at queue time.
const run = proto.run;
proto.run = function tracedRun(held, work) {
  if (!inTurn) return run.call(this, held, work);
  const at = turnAt;
  return run.call(this, held, async () => {
    const from = held.market.clock;
    try {
      return await work();
    } finally {
      if (held.market.clock !== from) moves.push([at, held.accountId, from, held.market.clock]);
    }
  });
};
process.on('exit', () => writeFileSync(out, JSON.stringify({ moves })));
await import('../server/dist/main.js');
