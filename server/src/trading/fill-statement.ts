import type { Kysely } from 'kysely';
import { type RealizedPnlValues, withRealizedPnl } from '../accounts/index.js';
import { type ComposedStatement, prepare } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { type FillStatisticsValues, withFillStatistics } from './performance/repo.js';
import {
  type FillIds,
  type FillPositionWrite,
  fillIdsFromRow,
  fillValues,
  type NewFillOrder,
  type NewFillTrade,
  withFill,
} from './repo.js';

/**
 * A market order's whole fill in one statement on PostgreSQL (docs/order-engine.md#round-trips):
 * the position, the FILLED order and its trade (trading/repo.ts, `withFill`); the realized P&L's
 * balance change and ledger row (accounts/repo.ts, `withRealizedPnl`); the equity point, a
 * closed trade's pair statistics and journal row, and the period's update
 * (performance/repo.ts, `withFillStatistics`). Each repository writes its own tables' CTEs; the
 * later ones read the trade's id from `fill_trade`. Their values are named with a prefix here:
 * the fill's as `withFill` names them, the P&L's `pnl_…`, the statistics' `stats_…`.
 */
function wholeFill(position: FillPositionWrite['kind'], pnl: boolean, closedTrade: boolean) {
  // The casts below: each part's `value` is typed by its own builder, so a prefixed lookup
  // answers `never` (assignable to each); a statement is handed between parts as
  // `ComposedStatement`, which drops the CTEs' types, and the last cast gives back `withFill`'s
  // type, under which `fill_trade` can be selected (db/prepared.ts says why the CTEs' names are
  // a convention between the parts rather than part of the type).
  return (q: Kysely<Database>, value: (name: string) => unknown) => {
    const prefixed = (prefix: string) => (n: string) => value(`${prefix}${n}`) as never;
    let statement = withFill(q, position, prefixed('')) as unknown as ComposedStatement;
    if (pnl) statement = withRealizedPnl(statement, prefixed('pnl_'));
    statement = withFillStatistics(statement, prefixed('stats_'), closedTrade);
    return (statement as unknown as ReturnType<typeof withFill<typeof position>>).selectFrom('fill_trade').selectAll();
  };
}

// The values of three modules under their prefixes: each part types its own values in its builder
// (withFill, withRealizedPnl, withFillStatistics) and `writeWholeFill` fills them from those types,
// so the composed statement's own map is loose rather than a fourth copy of their shapes.
type Values = Record<string, unknown>;
// One compiled statement for each shape a market order's fill takes.
const opening = prepare<Values, FillIds>('trading.wholeFillOpening', wholeFill('insert', false, false));
const adding = prepare<Values, FillIds>('trading.wholeFillAdding', wholeFill('update', false, false));
const closing = prepare<Values, FillIds>('trading.wholeFillClosing', wholeFill('update', true, true));
/** A trade closed at exactly no P&L: no balance change, no ledger row. */
const closingFlat = prepare<Values, FillIds>('trading.wholeFillClosingFlat', wholeFill('update', false, true));

/** Everything a market order's fill writes, computed before the statement runs. */
export interface WholeFill {
  position: FillPositionWrite;
  order: NewFillOrder;
  trade: NewFillTrade;
  /** The realized P&L's ledger values, when the fill realizes any (not 0). */
  realizedPnl: RealizedPnlValues | undefined;
  statistics: { values: FillStatisticsValues; closedTrade: boolean };
}

/** Writes the whole fill in one statement (PostgreSQL only); the ids its rows were given. */
export async function writeWholeFill(trx: Kysely<Database>, fill: WholeFill) {
  const values = fillValues(fill.position, fill.order, fill.trade);
  for (const [c, x] of Object.entries(fill.realizedPnl ?? {})) values[`pnl_${c}`] = x;
  for (const [c, x] of Object.entries(fill.statistics.values)) values[`stats_${c}`] = x;
  // Only a closed trade realizes P&L, and a new position closes none: any other shape would leave
  // a part of the fill unwritten.
  if (fill.realizedPnl && !fill.statistics.closedTrade) throw new Error('P&L realized without a closed trade');
  if (fill.position.kind === 'insert' && fill.statistics.closedTrade) throw new Error('A new position closes no trade');
  const statement =
    fill.position.kind === 'insert' ? opening : !fill.statistics.closedTrade ? adding : fill.realizedPnl ? closing : closingFlat;
  const [row] = await statement.execute(trx, values);
  return fillIdsFromRow(row!);
}
