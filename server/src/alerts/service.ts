import {
  type Alert,
  type AlertStatus,
  type CreateAlertRequest,
  Dec,
  MAX_ACTIVE_ALERTS,
  orderProblemMessage,
  priceProblem,
  type UpdateAlertRequest,
} from '@pipdesk/contract';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { PairCatalog } from '../market/index.js';
import type { Bus } from '../realtime/bus.js';
import { alertDto } from './presenter.js';
import * as repo from './repo.js';
import { ALERT_CHANGE_TOPIC, type AlertChangePayload, type AlertRow, armedStateOf, PRICE_SCALE } from './types.js';

// The rules of the alert calls (docs/charting.md#alerts): an active pair, a price with at most
// the pair's digits, an expiry in the future, at most MAX_ACTIVE_ALERTS ACTIVE per trader, only
// an ACTIVE alert changes. Every committed change goes on the bus for the evaluating node.

export interface AlertServiceDeps {
  db: Db;
  bus: Pick<Bus, 'publish'>;
  clock: Clock;
  pairs: PairCatalog;
}

const fieldError = (field: string, message: string) => errors.validation(`${field}: ${message}`, [{ field, message }]);

/** The stored price (× 10^10), or the 400 the order calls answer for the same mistake. */
function storedPrice(value: number, digits: number): number {
  const problem = priceProblem(value, digits);
  if (problem) throw fieldError('price', orderProblemMessage(problem));
  return Dec.from(value).toScaledNumber(PRICE_SCALE);
}

/** Epoch ms of an `expires_at` that must lie after now (the schema already read it as ISO). */
function futureExpiry(text: string, now: number): number {
  const at = Date.parse(text);
  if (at <= now) throw fieldError('expires_at', orderProblemMessage({ code: 'EXPIRY_PAST' }));
  return at;
}

function digitsOf(deps: AlertServiceDeps, symbol: string): number {
  return deps.pairs.get(symbol)?.digits ?? 5;
}

const dtoOf = (deps: AlertServiceDeps, row: AlertRow): Alert => alertDto(row, digitsOf(deps, row.symbol));

function publish(deps: AlertServiceDeps, change: AlertChangePayload): void {
  deps.bus.publish('message', { topic: ALERT_CHANGE_TOPIC, payload: change });
}

export async function listAlerts(deps: AlertServiceDeps, userId: number, status: AlertStatus | undefined): Promise<Alert[]> {
  const rows = await repo.listAlerts(deps.db, userId, status);
  return rows.map((row) => dtoOf(deps, row));
}

export async function createAlert(deps: AlertServiceDeps, userId: number, body: CreateAlertRequest): Promise<{ alert: Alert }> {
  const pair = deps.pairs.get(body.symbol);
  if (!pair?.isActive) throw errors.pairNotFound(body.symbol);
  const now = deps.clock.now();
  const row = await repo.insertAlert(
    deps.db,
    {
      user_id: userId,
      symbol: pair.symbol,
      condition: body.condition,
      price_e10: storedPrice(body.price, pair.digits),
      note: body.note || null,
      status: 'ACTIVE',
      version: 1,
      created_at: now,
      updated_at: now,
      expires_at: body.expires_at === undefined ? null : futureExpiry(body.expires_at, now),
      triggered_at: null,
      triggered_price_e10: null,
    },
    MAX_ACTIVE_ALERTS,
  );
  if (!row) throw errors.limitReached(`You already have ${MAX_ACTIVE_ALERTS} active alerts: delete one to set another`);
  publish(deps, { kind: 'armed', alert: armedStateOf(row) });
  return { alert: dtoOf(deps, row) };
}

export async function updateAlert(
  deps: AlertServiceDeps,
  userId: number,
  id: number,
  body: UpdateAlertRequest,
): Promise<{ alert: Alert }> {
  const current = await repo.findAlert(deps.db, userId, id);
  if (!current) throw errors.alertNotFound();
  if (current.status !== 'ACTIVE') throw errors.alertNotActive(current.status);
  const now = deps.clock.now();
  const row = await repo.updateActiveAlert(deps.db, userId, id, {
    ...(body.condition !== undefined ? { condition: body.condition } : {}),
    ...(body.price !== undefined ? { price_e10: storedPrice(body.price, digitsOf(deps, current.symbol)) } : {}),
    ...(body.note !== undefined ? { note: body.note || null } : {}),
    ...(body.expires_at !== undefined
      ? { expires_at: body.expires_at === null ? null : futureExpiry(body.expires_at, now) }
      : {}),
    updated_at: now,
  });
  if (!row) {
    // It fired, expired or was deleted between the read and the write.
    const after = await repo.findAlert(deps.db, userId, id);
    throw after ? errors.alertNotActive(after.status) : errors.alertNotFound();
  }
  publish(deps, { kind: 'armed', alert: armedStateOf(row) });
  return { alert: dtoOf(deps, row) };
}

export async function deleteAlert(deps: AlertServiceDeps, userId: number, id: number): Promise<{ id: number }> {
  if (!(await repo.deleteAlert(deps.db, userId, id))) throw errors.alertNotFound();
  publish(deps, { kind: 'gone', alertId: id });
  return { id };
}
