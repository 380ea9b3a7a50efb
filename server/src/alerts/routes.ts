import { ops } from '@pipdesk/contract';
import type { FastifyInstance } from 'fastify';
import type { AuthModule } from '../auth/index.js';
import { operationRoutes } from '../http/operation-route.js';
import { type AlertServiceDeps, createAlert, deleteAlert, listAlerts, updateAlert } from './service.js';

/** trading/alerts/ (docs/charting.md#alerts): every call acts on the caller's own alerts only. */
export async function registerAlertRoutes(
  api: FastifyInstance,
  deps: { auth: Pick<AuthModule, 'authenticate'>; alerts: AlertServiceDeps },
): Promise<void> {
  const d = deps.alerts;
  const route = operationRoutes(api, deps.auth);
  route(ops.listAlerts, async ({ query }, { request }) => listAlerts(d, request.auth.userId, query.status));
  route(ops.createAlert, async ({ body }, { request }) => createAlert(d, request.auth.userId, body));
  route(ops.updateAlert, async ({ ids, body }, { request }) => updateAlert(d, request.auth.userId, ids.id, body));
  route(ops.deleteAlert, async ({ ids }, { request }) => deleteAlert(d, request.auth.userId, ids.id));
}
