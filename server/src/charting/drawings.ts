import {
  type CreateDrawingRequest,
  DRAWING_POINTS,
  type Drawing,
  type DrawingPoint,
  MAX_DRAWINGS_PER_PAIR,
  type UpdateDrawingRequest,
} from '@pipdesk/contract';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/database.js';
import { writeTransaction } from '../db/transaction.js';
import { errors, validationFromIssues } from '../errors.js';
import type { Pair, PairCatalog } from '../market/index.js';
import * as repo from './repo.js';

// Drawings kept per trader and pair (docs/charting.md#drawings): the rules of each call. Every
// read and write is the signed-in trader's own; another trader's drawing is not found.

export interface DrawingsDeps {
  db: Db;
  clock: Clock;
  pairs: PairCatalog;
}

/** The active catalogue pair of `symbol` (any case), else the 404 a chart of that pair would get. */
export function activePair(pairs: PairCatalog, symbol: string): Pair {
  const pair = pairs.get(symbol);
  if (!pair?.isActive) throw errors.pairNotFound(symbol.toUpperCase());
  return pair;
}

/** GET trading/drawings/?symbol=: the trader's drawings on an active pair, oldest first. */
export async function listDrawings(deps: DrawingsDeps, userId: number, symbol: string): Promise<Drawing[]> {
  const rows = await repo.listDrawings(deps.db.kysely, userId, activePair(deps.pairs, symbol).symbol);
  return rows.map(drawingDto);
}

/**
 * The drawings of a trader someone else may read (an instructor's read-only view; the caller's
 * scope is checked by the academy first). No pair check: it shows what is kept, and a pair
 * taken out of the catalogue just has none to show.
 */
export async function drawingsOf(deps: Pick<DrawingsDeps, 'db'>, userId: number, symbol: string): Promise<Drawing[]> {
  return (await repo.listDrawings(deps.db.kysely, userId, symbol.toUpperCase())).map(drawingDto);
}

/** POST trading/drawings/: 404 unless the pair is active, 409 at MAX_DRAWINGS_PER_PAIR on the pair. */
export async function createDrawing(deps: DrawingsDeps, userId: number, input: CreateDrawingRequest): Promise<Drawing> {
  const symbol = activePair(deps.pairs, input.symbol).symbol;
  const now = deps.clock.now();
  const row = await writeTransaction(deps.db, async (trx) => {
    // Counted inside the write transaction, after the lock: two concurrent creates cannot both
    // see 499 and make 501.
    await repo.lockTraderPair(trx, deps.db.kind, userId, symbol);
    if ((await repo.countDrawings(trx, userId, symbol)) >= MAX_DRAWINGS_PER_PAIR)
      throw errors.limitReached(`You already keep ${MAX_DRAWINGS_PER_PAIR} drawings on ${symbol}: delete some to add more`);
    return repo.insertDrawing(trx, {
      user_id: userId,
      symbol,
      kind: input.kind,
      points: pointsText(input.points),
      text: input.text || null,
      color: input.color ?? null,
      created_at: now,
      updated_at: now,
    });
  });
  return drawingDto(row);
}

/**
 * PATCH trading/drawings/{id}/: fields left out keep their value. The kind never changes, so the
 * points must keep its count, and a text note keeps a text (400 naming the field).
 */
export async function updateDrawing(
  deps: Pick<DrawingsDeps, 'db' | 'clock'>,
  userId: number,
  id: number,
  input: UpdateDrawingRequest,
): Promise<Drawing> {
  const q = deps.db.kysely;
  const current = await repo.findDrawing(q, userId, id);
  if (!current) throw errors.drawingNotFound();
  const wanted = DRAWING_POINTS[current.kind];
  if (input.points !== undefined && input.points.length !== wanted)
    throw validationFromIssues([
      { path: ['points'], message: `a ${current.kind} has exactly ${wanted} point${wanted === 1 ? '' : 's'}` },
    ]);
  if (current.kind === 'text' && input.text !== undefined && !input.text)
    throw validationFromIssues([{ path: ['text'], message: 'is required for a text note' }]);
  const changed = await repo.updateDrawing(q, userId, id, {
    ...(input.points !== undefined ? { points: pointsText(input.points) } : {}),
    ...(input.text !== undefined ? { text: input.text || null } : {}),
    ...(input.color !== undefined ? { color: input.color } : {}),
    updated_at: deps.clock.now(),
  });
  // Deleted between the read and the write (another tab): as missing as if it never was.
  if (!changed) throw errors.drawingNotFound();
  return drawingDto(changed);
}

/** DELETE trading/drawings/{id}/. */
export async function deleteDrawing(deps: Pick<DrawingsDeps, 'db'>, userId: number, id: number): Promise<{ id: number }> {
  if (!(await repo.deleteDrawing(deps.db.kysely, userId, id))) throw errors.drawingNotFound();
  return { id };
}

/** Only the two fields, in a fixed order: the JSON kept is the points as sent, nothing more. */
function pointsText(points: readonly DrawingPoint[]): string {
  return JSON.stringify(points.map((p) => ({ time: p.time, price: p.price })));
}

export function drawingDto(row: repo.DrawingRow): Drawing {
  return {
    id: Number(row.id),
    symbol: row.symbol,
    kind: row.kind,
    points: JSON.parse(row.points) as DrawingPoint[],
    text: row.text,
    color: row.color,
    created_at: new Date(Number(row.created_at)).toISOString(),
    updated_at: new Date(Number(row.updated_at)).toISOString(),
  };
}
