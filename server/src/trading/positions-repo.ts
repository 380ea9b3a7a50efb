import { type Insertable, sql } from 'kysely';
import { prepare } from '../db/prepared.js';
import { priceFromE10 } from './math.js';
import { OPEN, type PositionRow, preparedInsert, type Q } from './rows.js';
import type { PositionsTable } from './tables.js';
import { accountId, type PositionState, positionId } from './types.js';

/** The exact state of a stored position (what the live book keeps and execution events carry). */
export function positionStateFromRow(row: PositionRow): PositionState {
  return {
    id: positionId(row.id),
    accountId: accountId(row.account_id),
    pairId: row.pair_id,
    symbol: row.symbol,
    quantityCentilots: row.quantity_centilots,
    averageEntryPrice: priceFromE10(row.average_entry_price_e10).toString(),
    status: row.status,
    realizedPnlMinor: row.realized_pnl_minor,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    closedAt: row.closed_at,
    stopLoss: row.stop_loss_e10 === null ? null : priceFromE10(row.stop_loss_e10).toString(),
    takeProfit: row.take_profit_e10 === null ? null : priceFromE10(row.take_profit_e10).toString(),
    trailingStopPips: row.trailing_stop_pips,
    protectionVersion: row.protection_version,
  };
}

const openPositionsOfAccount = prepare<{ accountId: number }, PositionRow>('trading.openPositionsOfAccount', (q, value) =>
  q.selectFrom('positions').selectAll().where('account_id', '=', value('accountId')).where('status', '=', OPEN),
);

export async function openPositions(q: Q, accountId: number): Promise<PositionRow[]> {
  return openPositionsOfAccount.execute(q, { accountId });
}

export async function openPositionsOnPair(q: Q, accountId: number, symbol: string): Promise<PositionRow[]> {
  return q
    .selectFrom('positions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', OPEN)
    .where('symbol', '=', symbol)
    .execute();
}

/** A position of this account only: another trader's id is simply not found. */
export async function findPosition(q: Q, accountId: number, id: number): Promise<PositionRow | undefined> {
  return q.selectFrom('positions').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** A position by id, whoever's (the trigger executor's read). */
const positionById = prepare<{ id: number }, PositionRow>('trading.positionById', (q, value) =>
  q.selectFrom('positions').selectAll().where('id', '=', value('id')),
);

export async function findPositionById(q: Q, id: number): Promise<PositionRow | undefined> {
  return (await positionById.execute(q, { id }))[0];
}

/** The columns a new position is written with (all but its id and `protection_version`, which starts at 0). */
export const POSITION_COLUMNS = [
  'account_id',
  'pair_id',
  'symbol',
  'quantity_centilots',
  'average_entry_price_e10',
  'realized_pnl_minor',
  'status',
  'created_at',
  'updated_at',
  'closed_at',
  'stop_loss_e10',
  'take_profit_e10',
  'trailing_stop_pips',
] as const;

const positionInsert = preparedInsert('trading.insertPosition', 'positions', POSITION_COLUMNS);

/** What an execution changes on a position (its protection included: docs/orders.md#protection-on-positions). */
export type PositionChanges = Pick<
  PositionRow,
  | 'quantity_centilots'
  | 'average_entry_price_e10'
  | 'realized_pnl_minor'
  | 'status'
  | 'updated_at'
  | 'closed_at'
  | 'stop_loss_e10'
  | 'take_profit_e10'
  | 'trailing_stop_pips'
  | 'protection_version'
>;

export const POSITION_CHANGE_COLUMNS = [
  'quantity_centilots',
  'average_entry_price_e10',
  'realized_pnl_minor',
  'status',
  'updated_at',
  'closed_at',
  'stop_loss_e10',
  'take_profit_e10',
  'trailing_stop_pips',
  'protection_version',
] as const satisfies ReadonlyArray<keyof PositionChanges>;

const positionUpdate = prepare<PositionChanges & { id: number }, never>('trading.updatePosition', (q, value) =>
  q
    .updateTable('positions')
    .set(Object.fromEntries(POSITION_CHANGE_COLUMNS.map((c) => [c, value(c)])))
    .where('id', '=', value('id')),
);

export async function insertPosition(trx: Q, row: Insertable<PositionsTable>): Promise<number> {
  return (await positionInsert.execute(trx, row))[0]!.id;
}

export async function updatePosition(trx: Q, id: number, changes: PositionChanges): Promise<void> {
  await positionUpdate.execute(trx, { ...changes, id });
}

/** How a fill writes its position: a new one, or the changes to the one it fills into. */
export type FillPositionWrite =
  | { kind: 'insert'; row: Insertable<PositionsTable> }
  | { kind: 'update'; id: number; changes: PositionChanges };

/** Writes the fill's position: its id. */
export async function writePosition(trx: Q, write: FillPositionWrite): Promise<number> {
  if (write.kind === 'insert') return insertPosition(trx, write.row);
  await updatePosition(trx, write.id, write.changes);
  return write.id;
}

// ------------------------------------------------------------------ protection (docs/orders.md#protection-on-positions)

/** A position's protection as stored. */
export type PositionProtection = Pick<PositionRow, 'stop_loss_e10' | 'take_profit_e10' | 'trailing_stop_pips'>;

/** Sets an OPEN position's protection (a trader's change: its `protection_version` is bumped); the row after, or undefined when it is no longer OPEN. */
export async function updatePositionProtection(
  trx: Q,
  id: number,
  protection: PositionProtection,
  updatedAt: number,
): Promise<PositionRow | undefined> {
  return trx
    .updateTable('positions')
    .set((eb) => ({ ...protection, updated_at: updatedAt, protection_version: eb('protection_version', '+', 1) }))
    .where('id', '=', id)
    .where('status', '=', OPEN)
    .returningAll()
    .executeTakeFirst();
}

const trailingStopSave = prepare<{ id: number; stopLoss: number; version: number }, { id: number }>(
  'trading.saveTrailingStop',
  (q, value) =>
    q
      .updateTable('positions')
      .set({ stop_loss_e10: value('stopLoss') })
      .where('id', '=', value('id'))
      .where('status', '=', OPEN)
      // The protection the engine moved is still the stored one: a trader's or a fill's change since then wins.
      .where('protection_version', '=', value('version'))
      // While it trails; or after a change that took the trailing away and left the stop loss out
      // (version ≥ 1), the stop the engine kept where it trailed to. Never one untouched since it opened without trailing.
      .where((eb) => eb.or([eb('trailing_stop_pips', 'is not', null), eb('protection_version', '>', 0)]))
      // Only ever tighter (a LONG's stop up, a SHORT's down): a stop the trader set meanwhile is never loosened.
      .where((eb) =>
        eb.or([
          eb('stop_loss_e10', 'is', null),
          eb.and([eb('quantity_centilots', '>', 0), eb('stop_loss_e10', '<', value('stopLoss'))]),
          eb.and([eb('quantity_centilots', '<', 0), eb('stop_loss_e10', '>', value('stopLoss'))]),
        ]),
      )
      .returning('id'),
);

/**
 * Writes a trailing stop that moved (or that a change leaving the stop loss out kept), for the
 * protection version the engine holds; false when the position is gone, never trailed, already has
 * a tighter stop, or its protection was changed since that version (docs/order-engine.md#the-engine).
 */
export async function saveTrailingStop(trx: Q, id: number, stopLossE10: number, version: number): Promise<boolean> {
  return (await trailingStopSave.execute(trx, { id, stopLoss: stopLossE10, version })).length === 1;
}

// ------------------------------------------------------------------ start-up reads (the engine and the live book)

/** Every OPEN position with protection, oldest first: what the trigger engine arms at start. */
export async function allProtectedPositions(q: Q): Promise<PositionRow[]> {
  // Written as the partial index `positions_protected_idx` is, so both databases use it.
  return q
    .selectFrom('positions')
    .selectAll()
    .where(
      sql<boolean>`status = 'OPEN' and (stop_loss_e10 is not null or take_profit_e10 is not null or trailing_stop_pips is not null)`,
    )
    .orderBy('id')
    .execute();
}

/** Every OPEN position of every account, oldest first: the live cache's starting point. */
export async function allOpenPositions(q: Q): Promise<PositionRow[]> {
  return q.selectFrom('positions').selectAll().where('status', '=', OPEN).orderBy('id').execute();
}

/** The OPEN positions of these accounts (at most a few hundred ids), oldest first. */
export async function openPositionsOfAccounts(q: Q, accountIds: readonly number[]): Promise<PositionRow[]> {
  if (accountIds.length === 0) return [];
  return q
    .selectFrom('positions')
    .selectAll()
    .where('status', '=', OPEN)
    .where('account_id', 'in', accountIds)
    .orderBy('id')
    .execute();
}
