import type { AlertStatus } from '@pipdesk/contract';
import { type Insertable, sql, type Updateable } from 'kysely';
import type { Db } from '../db/database.js';
import { writeTransaction } from '../db/transaction.js';
import type { AlertsTable } from './tables.js';
import type { AlertRow, FireGroup } from './types.js';

// The SQL of price alerts (docs/charting.md#alerts). Every read and change of a trader's alert is
// scoped to the trader; the evaluator's writes are guarded by status, so a fire or an expiry is
// recorded at most once whichever node or retry writes it.

/** The most alerts a list answers (ACTIVE ones are at most 200; the rest is history). */
export const LIST_LIMIT = 500;
/** Ids per statement: well inside SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

export function listAlerts(db: Db, userId: number, status: AlertStatus | undefined): Promise<AlertRow[]> {
  let query = db.kysely.selectFrom('price_alerts').selectAll().where('user_id', '=', userId);
  if (status) query = query.where('status', '=', status);
  return query.orderBy('id', 'desc').limit(LIST_LIMIT).execute();
}

export function findAlert(db: Db, userId: number, id: number): Promise<AlertRow | undefined> {
  return db.kysely.selectFrom('price_alerts').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

/**
 * Stores a new ACTIVE alert unless the trader already has `maxActive` (then null). The count and
 * the insert are one transaction serialized per trader (SQLite's single writer; a per-trader
 * advisory lock on PostgreSQL), so two creates racing for the last place cannot both win.
 */
export function insertAlert(db: Db, row: Insertable<AlertsTable>, maxActive: number): Promise<AlertRow | null> {
  return writeTransaction(db, async (trx) => {
    if (db.kind === 'postgres')
      await sql`select pg_advisory_xact_lock(hashtext(${`pipdesk:alerts:${row.user_id}`}))`.execute(trx);
    const { active } = await trx
      .selectFrom('price_alerts')
      .select((eb) => eb.fn.countAll<number | string>().as('active'))
      .where('user_id', '=', row.user_id)
      .where('status', '=', 'ACTIVE')
      .executeTakeFirstOrThrow();
    if (Number(active) >= maxActive) return null;
    return trx.insertInto('price_alerts').values(row).returningAll().executeTakeFirstOrThrow();
  });
}

/** Changes an ACTIVE alert of the trader and bumps its version; undefined when it is not (any more) ACTIVE or not theirs. */
export function updateActiveAlert(
  db: Db,
  userId: number,
  id: number,
  changes: Omit<Updateable<AlertsTable>, 'version' | 'status'>,
): Promise<AlertRow | undefined> {
  return writeTransaction(db, (trx) =>
    trx
      .updateTable('price_alerts')
      .set({ ...changes, version: sql<number>`version + 1` })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('status', '=', 'ACTIVE')
      .returningAll()
      .executeTakeFirst(),
  );
}

/** Deletes the trader's alert; false when there is none. */
export async function deleteAlert(db: Db, userId: number, id: number): Promise<boolean> {
  const result = await writeTransaction(db, (trx) =>
    trx.deleteFrom('price_alerts').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst(),
  );
  return Number(result.numDeletedRows) > 0;
}

/** Every ACTIVE alert: what a new leader loads before its first tick. */
export function loadActiveAlerts(db: Db): Promise<AlertRow[]> {
  return db.kysely.selectFrom('price_alerts').selectAll().where('status', '=', 'ACTIVE').execute();
}

/**
 * Records fired alerts, all groups in one transaction (one sync on SQLite). Each row is written
 * only while it is ACTIVE, has the condition it fired by, its price is still crossed by the tick,
 * and it had not expired by the tick's time: a change or a delete that won the race, a second
 * node or a retry leaves it as it is. Answers the rows it fired.
 */
export function fireAlerts(db: Db, groups: readonly FireGroup[]): Promise<AlertRow[]> {
  return writeTransaction(db, async (trx) => {
    const fired: AlertRow[] = [];
    for (const group of groups) {
      const above = group.condition === 'bid_above' || group.condition === 'ask_above';
      for (let i = 0; i < group.ids.length; i += CHUNK) {
        const rows = await trx
          .updateTable('price_alerts')
          .set({ status: 'TRIGGERED', triggered_at: group.at, triggered_price_e10: group.priceE10, updated_at: group.at })
          .where('id', 'in', group.ids.slice(i, i + CHUNK))
          .where('status', '=', 'ACTIVE')
          .where('condition', '=', group.condition)
          .where('price_e10', above ? '<=' : '>=', group.priceE10)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', group.at)]))
          .returningAll()
          .execute();
        fired.push(...rows);
      }
    }
    return fired;
  });
}

/** Moves ACTIVE alerts whose expiry is at or before `now` to EXPIRED; answers those it moved. */
export function expireAlerts(db: Db, ids: readonly number[], now: number): Promise<AlertRow[]> {
  return writeTransaction(db, async (trx) => {
    const expired: AlertRow[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await trx
        .updateTable('price_alerts')
        .set({ status: 'EXPIRED', updated_at: now })
        .where('id', 'in', ids.slice(i, i + CHUNK))
        .where('status', '=', 'ACTIVE')
        .where('expires_at', '<=', now)
        .returningAll()
        .execute();
      expired.push(...rows);
    }
    return expired;
  });
}
