import type { Insertable, Kysely } from 'kysely';
import { type RealizedPnlValues, withRealizedPnl } from '../accounts/index.js';
import { type ComposedStatement, composedStatement, prepare } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import { ORDER_COLUMNS, TRADE_COLUMNS } from './orders-repo.js';
import { type FillStatisticsValues, withFillStatistics } from './performance/repo.js';
import { type FillPositionWrite, POSITION_CHANGE_COLUMNS, POSITION_COLUMNS, type PositionChanges } from './positions-repo.js';
import type { NewOrderRow } from './rows.js';
import type { PositionsTable, TradesTable } from './tables.js';

declare module '../db/prepared.js' {
  /** The CTEs of a fill's position, order and trade (`withFill`); the later parts read `fill_trade`'s id. */
  interface ComposedCtes {
    fill_position: { id: number };
    fill_order: { id: number };
    fill_trade: { id: number; order_id: number; position_id: number };
  }
}

/** A filled MARKET order, but for its position's id (its fill writes the position in the same statement). */
export type NewFillOrder = Omit<NewOrderRow, 'position_id'>;
/** A fill's trade, but for its order's and position's ids. */
export type NewFillTrade = Omit<Insertable<TradesTable>, 'order_id' | 'position_id'>;

type FillOrderColumn = Exclude<(typeof ORDER_COLUMNS)[number], 'position_id'>;
type FillTradeColumn = Exclude<(typeof TRADE_COLUMNS)[number], 'order_id' | 'position_id'>;
type TradeValues = { [C in FillTradeColumn as `trade_${C}`]: NewFillTrade[C] };
type PositionValues<W> = W extends { kind: 'insert' }
  ? { [C in (typeof POSITION_COLUMNS)[number] as `position_${C}`]: Insertable<PositionsTable>[C] }
  : { [C in keyof PositionChanges as `position_${C}`]: PositionChanges[C] } & { position_id: number };
type FillValues<K extends FillPositionWrite['kind']> = NewFillOrder & TradeValues & PositionValues<{ kind: K }>;

const FILL_ORDER_COLUMNS = ORDER_COLUMNS.filter((c): c is FillOrderColumn => c !== 'position_id');
const FILL_TRADE_COLUMNS = TRADE_COLUMNS.filter((c): c is FillTradeColumn => c !== 'order_id' && c !== 'position_id');

/** A row of `columns`, each the statement's value named `prefix` + the column. */
function named<C extends string>(columns: readonly C[], value: (name: string) => never, prefix = ''): Record<C, never> {
  const row = {} as Record<C, never>;
  for (const c of columns) row[c] = value(`${prefix}${c}`);
  return row;
}

/**
 * On PostgreSQL, a MARKET order's fill as CTEs of one statement (one round trip instead of three
 * on the order path: docs/order-engine.md#round-trips): the position written (`fill_position`,
 * inserted or updated), the FILLED order (`fill_order`) and its trade (`fill_trade`), both
 * pointing at that position. Each table's values are named with a prefix (`position_…`,
 * `trade_…`) beside the order's own. Other modules may add CTEs after these that read
 * `fill_trade`'s id (`wholeFill` below). SQLite has no data-modifying CTE and runs the three
 * statements (fill-repo.ts).
 */
function withFill<K extends FillPositionWrite['kind']>(
  q: ComposedStatement,
  kind: K,
  value: <N extends keyof FillValues<K> & string>(name: N) => FillValues<K>[N],
): ComposedStatement {
  const v = (name: string) => value(name as keyof FillValues<K> & string) as never;
  return q
    .with('fill_position', (db) =>
      kind === 'insert'
        ? db
            .insertInto('positions')
            .values(named(POSITION_COLUMNS, v, 'position_'))
            .returning('id')
        : db
            .updateTable('positions')
            .set(named(POSITION_CHANGE_COLUMNS, v, 'position_'))
            .where('id', '=', v('position_id'))
            .returning('id'),
    )
    .with('fill_order', (db) =>
      db
        .insertInto('orders')
        .values((eb) => ({
          ...named(FILL_ORDER_COLUMNS, v),
          position_id: eb.selectFrom('fill_position').select('id'),
        }))
        .returning('id'),
    )
    .with('fill_trade', (db) =>
      db
        .insertInto('trades')
        .values((eb) => ({
          ...named(FILL_TRADE_COLUMNS, v, 'trade_'),
          position_id: eb.selectFrom('fill_position').select('id'),
          order_id: eb.selectFrom('fill_order').select('id'),
        }))
        .returning(['id', 'order_id', 'position_id']),
    );
}

/** The fill's statement's values (see `withFill`). */
function fillValues(position: FillPositionWrite, order: NewFillOrder, trade: NewFillTrade): Record<string, unknown> {
  const values: Record<string, unknown> = { ...order };
  for (const c of FILL_TRADE_COLUMNS) values[`trade_${c}`] = trade[c];
  const fields: Record<string, unknown> = position.kind === 'insert' ? position.row : position.changes;
  for (const [c, x] of Object.entries(fields)) values[`position_${c}`] = x;
  if (position.kind === 'update') values.position_id = position.id;
  return values;
}

/** What a fill's statement answers: the trade's id, and its order's and position's. */
type FillIds = { id: number; order_id: number; position_id: number };

const fillNewPosition = prepare<FillValues<'insert'>, FillIds>('trading.fillNewPosition', (q, value) =>
  withFill(composedStatement(q), 'insert', value).selectFrom('fill_trade').selectAll(),
);
const fillPosition = prepare<FillValues<'update'>, FillIds>('trading.fillPosition', (q, value) =>
  withFill(composedStatement(q), 'update', value).selectFrom('fill_trade').selectAll(),
);

/** The ids a fill's rows were given. */
export interface WrittenFill {
  positionId: number;
  orderId: number;
  tradeId: number;
}

const writtenFill = (row: FillIds): WrittenFill => ({ positionId: row.position_id, orderId: row.order_id, tradeId: row.id });

/** A MARKET order's position, FILLED order and trade in one statement (PostgreSQL only); their ids. */
export async function writeFillStatement(
  trx: Kysely<Database>,
  position: FillPositionWrite,
  order: NewFillOrder,
  trade: NewFillTrade,
): Promise<WrittenFill> {
  const values = fillValues(position, order, trade);
  const [row] =
    position.kind === 'insert'
      ? await fillNewPosition.execute(trx, values as FillValues<'insert'>)
      : await fillPosition.execute(trx, values as FillValues<'update'>);
  return writtenFill(row!);
}

/**
 * A market order's whole fill in one statement on PostgreSQL (docs/order-engine.md#round-trips):
 * the position, the FILLED order and its trade (`withFill` above); the realized P&L's
 * balance change and ledger row (accounts/repo.ts, `withRealizedPnl`); the equity point, a
 * closed trade's pair statistics and journal row, and the period's update
 * (performance/repo.ts, `withFillStatistics`). Each repository writes its own tables' CTEs; the
 * later ones read the trade's id from `fill_trade`. Their values are named with a prefix here:
 * the fill's as `withFill` names them, the P&L's `pnl_…`, the statistics' `stats_…`.
 */
function wholeFill(position: FillPositionWrite['kind'], pnl: boolean, closedTrade: boolean) {
  return (q: Kysely<Database>, value: (name: string) => unknown) => {
    // Each part types its own values; a prefixed lookup answers `never`, assignable to each.
    const prefixed = (prefix: string) => (n: string) => value(`${prefix}${n}`) as never;
    let statement = withFill(composedStatement(q), position, prefixed(''));
    if (pnl) statement = withRealizedPnl(statement, prefixed('pnl_'));
    statement = withFillStatistics(statement, prefixed('stats_'), closedTrade);
    return statement.selectFrom('fill_trade').selectAll();
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
export async function writeWholeFill(trx: Kysely<Database>, fill: WholeFill): Promise<WrittenFill> {
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
  return writtenFill(row!);
}
