import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import { studentForCaller } from '../academy/scope.js';
import type { AuthModule } from '../auth/index.js';
import { operationRoutes } from '../http/operation-route.js';
import { createDrawing, type DrawingsDeps, deleteDrawing, drawingsOf, listDrawings, updateDrawing } from './drawings.js';
import { chartLayoutOf, saveChartLayout } from './layout.js';
import { type PositionSizeDeps, positionSize } from './position-size.js';

export type ChartingDeps = DrawingsDeps & PositionSizeDeps;

/**
 * The chart tools' calls (docs/charting.md): drawings, the chart layout and position size, and
 * an instructor's read-only view of a student's drawings. Routes only hand the signed-in
 * trader and the parsed input to the services.
 */
export async function registerChartingRoutes(
  api: FastifyInstance,
  deps: { auth: Pick<AuthModule, 'authenticate'>; charting: ChartingDeps },
): Promise<void> {
  const c = deps.charting;
  const route = operationRoutes(api, deps.auth);

  route(ops.listDrawings, async ({ query }, { request }) => listDrawings(c, request.auth.userId, query.symbol));
  route(ops.createDrawing, async ({ body }, { request }) => createDrawing(c, request.auth.userId, body));
  route(ops.updateDrawing, async ({ ids, body }, { request }) => updateDrawing(c, request.auth.userId, ids.id, body));
  route(ops.deleteDrawing, async ({ ids }, { request }) => deleteDrawing(c, request.auth.userId, ids.id));
  // The academy's scope rules (docs/academy.md#scope): admin and the student's instructors; a
  // trader is 403, a student outside the caller's scope 404.
  route(ops.studentDrawings, async ({ ids, query }, { request }) => {
    const student = await studentForCaller(c.db.kysely, request.auth, ids.id);
    return drawingsOf(c, student.userId, query.symbol);
  });

  route(ops.getChartLayout, async (_input, { request }) => chartLayoutOf(c, request.auth.userId));
  route(ops.saveChartLayout, async ({ body }, { request }) => saveChartLayout(c, request.auth.userId, body));

  route(ops.positionSize, async ({ query, account }, { request }) => positionSize(c, request.auth.userId, query, account));
}
