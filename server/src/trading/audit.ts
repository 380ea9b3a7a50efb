import { findAccountById, ledgerEntries } from '../accounts/index.js';
import type { Db } from '../db/database.js';
import { readSnapshot } from './repo.js';

/**
 * Checks the invariants of docs/trading-rules.md#invariants for one account against what is stored, and returns
 * every violation found (empty when the books are right). Used after every step of the
 * property, concurrency and crash tests; cheap enough to run by hand on a live database.
 *
 * - balance = Σ ledger;
 * - a position's quantity = Σ its signed fills, its realized P&L = Σ its trades' realized P&L;
 * - every trade that realized P&L has exactly one ledger entry of that amount (`trade:<id>`),
 *   and no realized-P&L entry lacks its trade;
 * - a FILLED order has exactly one trade of its quantity and price, any other order none
 *   (nothing half-applied);
 * - an OPEN position has a quantity, a CLOSED one none; at most one OPEN per pair.
 */
export async function auditAccount(db: Db, accountId: number): Promise<string[]> {
  const read = await readSnapshot(db, async (q) => {
    const account = await findAccountById(q, accountId);
    const ledger = await ledgerEntries(q, accountId);
    const positions = await q.selectFrom('positions').selectAll().where('account_id', '=', accountId).execute();
    const orders = await q.selectFrom('orders').selectAll().where('account_id', '=', accountId).execute();
    const trades = await q.selectFrom('trades').selectAll().where('account_id', '=', accountId).execute();
    return { account, ledger, positions, orders, trades };
  });
  const { account, ledger, positions, orders, trades } = read;
  if (!account) return [`account ${accountId} does not exist`];
  const problems: string[] = [];

  const ledgerSum = ledger.reduce((s, e) => s + Number(e.amount_minor), 0);
  if (ledgerSum !== Number(account.balance_minor)) problems.push(`balance ${account.balance_minor} ≠ Σ ledger ${ledgerSum}`);
  let running = 0;
  for (const e of ledger) {
    running += Number(e.amount_minor);
    if (running !== Number(e.balance_after_minor))
      problems.push(`ledger entry ${e.id}: balance_after ${e.balance_after_minor} ≠ ${running}`);
  }

  const tradesByOrder = new Map<number, typeof trades>();
  const tradesByPosition = new Map<number, typeof trades>();
  for (const t of trades) {
    tradesByOrder.set(Number(t.order_id), [...(tradesByOrder.get(Number(t.order_id)) ?? []), t]);
    tradesByPosition.set(Number(t.position_id), [...(tradesByPosition.get(Number(t.position_id)) ?? []), t]);
  }

  const openPairs = new Set<number>();
  for (const p of positions) {
    const fills = tradesByPosition.get(Number(p.id)) ?? [];
    const signed = fills.reduce((s, t) => s + (t.side === 'BUY' ? 1 : -1) * Number(t.quantity_centilots), 0);
    if (signed !== Number(p.quantity_centilots))
      problems.push(`position ${p.id}: quantity ${p.quantity_centilots} ≠ Σ fills ${signed}`);
    const realized = fills.reduce((s, t) => s + Number(t.realized_pnl_minor), 0);
    if (realized !== Number(p.realized_pnl_minor))
      problems.push(`position ${p.id}: realized ${p.realized_pnl_minor} ≠ Σ trades ${realized}`);
    if (p.status === 'OPEN') {
      if (Number(p.quantity_centilots) === 0) problems.push(`position ${p.id} is OPEN with quantity 0`);
      if (openPairs.has(Number(p.pair_id))) problems.push(`two OPEN positions on pair ${p.symbol}`);
      openPairs.add(Number(p.pair_id));
    } else if (Number(p.quantity_centilots) !== 0 || p.closed_at === null) {
      problems.push(`position ${p.id} is CLOSED with quantity ${p.quantity_centilots}`);
    }
  }

  const realizedEntries = new Map<string, number[]>();
  for (const e of ledger) {
    if (e.kind !== 'realized_pnl') continue;
    const ref = e.reference ?? '';
    realizedEntries.set(ref, [...(realizedEntries.get(ref) ?? []), Number(e.amount_minor)]);
  }
  for (const t of trades) {
    const entries = realizedEntries.get(`trade:${t.id}`) ?? [];
    const expected = Number(t.realized_pnl_minor) === 0 ? [] : [Number(t.realized_pnl_minor)];
    if (entries.length !== expected.length || entries[0] !== expected[0]) {
      problems.push(`trade ${t.id}: realized ${t.realized_pnl_minor} booked as [${entries.join(', ')}]`);
    }
    realizedEntries.delete(`trade:${t.id}`);
  }
  for (const ref of realizedEntries.keys()) problems.push(`ledger realized_pnl entry ${ref} has no trade`);

  for (const o of orders) {
    const fills = tradesByOrder.get(Number(o.id)) ?? [];
    if (o.status === 'FILLED') {
      const t = fills[0];
      if (fills.length !== 1 || !t) problems.push(`FILLED order ${o.id} has ${fills.length} trades`);
      else if (
        Number(t.quantity_centilots) !== Number(o.filled_quantity_centilots) ||
        Number(t.quantity_centilots) !== Number(o.quantity_centilots) ||
        Number(t.price_e10) !== Number(o.average_fill_price_e10) ||
        Number(t.position_id) !== Number(o.position_id)
      ) {
        problems.push(`FILLED order ${o.id} does not match its trade ${t.id}`);
      }
    } else if (fills.length > 0) {
      problems.push(`${o.status} order ${o.id} has ${fills.length} trades`);
    }
  }
  const orderIds = new Set(orders.map((o) => Number(o.id)));
  for (const t of trades) if (!orderIds.has(Number(t.order_id))) problems.push(`trade ${t.id} has no order`);
  return problems;
}
