import type { IdResource, OkData, OperationSpec, ServerInput } from '@pipdesk/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { requireRole } from '../auth/roles.js';
import { parseInput } from '../core/validate.js';
import { type AppError, errors } from '../errors.js';
import { parseIdempotencyKey } from './idempotency-key.js';

// The one way a call's route is registered (docs/api.md#how-a-call-is-declared): from its entry
// in the contract's operations map. The helper authenticates, checks the role, reads the ids,
// parameters, query and body with the entry's schemas, reads the Idempotency-Key where the entry
// says so, and wraps the handler's answer in the envelope unless the entry says it has none. A
// handler gets typed input and returns typed data; it never parses or builds an envelope.

/** The request and reply, for what only a handler knows (headers it sets, a page's links, a status). */
export interface RouteContext {
  request: FastifyRequest;
  reply: FastifyReply;
}

/** An idempotent call's answer: the data, and whether it is the replay of a key's first answer. */
export interface Replayable<T> {
  data: T;
  replayed: boolean;
}

/** What a handler returns: the data; a replayable answer where idempotent; any body where the answer is not JSON. */
export type HandlerResult<Op extends OperationSpec> = Op['ok'] extends { contentType: string }
  ? unknown
  : Op['idempotent'] extends true
    ? Replayable<OkData<Op>>
    : OkData<Op>;

export type OperationHandler<Op extends OperationSpec> = (
  input: ServerInput<Op>,
  ctx: RouteContext,
) => Promise<HandlerResult<Op>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The contract entry the route serves (the coverage test and the rate limits read it). */
    operation?: OperationSpec;
  }
}

/** Registers calls on `api` (the /api scope) from their entries. */
export type RouteRegistrar = <Op extends OperationSpec>(op: Op, handler: OperationHandler<Op>) => void;

/** The 404 of each kind of row id: an id that cannot be one of the caller's rows is not found. */
const NOT_FOUND: Record<IdResource, () => AppError> = {
  order: errors.orderNotFound,
  position: errors.positionNotFound,
  cohort: errors.cohortNotFound,
  student: errors.studentNotFound,
  trade: () => errors.notFound('Trade not found'),
  drawing: errors.drawingNotFound,
  alert: errors.alertNotFound,
  program: errors.programNotFound,
  replay: errors.replayNotFound,
};

/** A row id in a path: a positive integer of at most 15 digits, else the resource's 404. */
export function pathId(raw: string | undefined, resource: IdResource): number {
  if (!raw || !/^\d{1,15}$/.test(raw)) throw NOT_FOUND[resource]();
  const id = Number(raw);
  if (id <= 0) throw NOT_FOUND[resource]();
  return id;
}

/**
 * The account a call names with `?account=` (docs/accounts.md#choosing-the-account): undefined when
 * absent; a positive integer of at most 15 digits, else 404 `ACCOUNT_NOT_FOUND` (an id that cannot
 * be one of the caller's accounts is not found, as a row id in a path). Whether it is the caller's
 * is checked by the account gate (accounts/gate.ts) before the handler runs.
 */
export function accountParam(request: FastifyRequest): number | undefined {
  const raw = (request.query as Record<string, unknown> | undefined)?.account;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw) || Number(raw) <= 0) throw errors.accountNotFound();
  return Number(raw);
}

/**
 * Registers calls on `api` from their entries. `authenticate` is needed only by calls that sign
 * in; a signed-in entry registered without it is a wiring mistake, refused at start-up.
 */
export function operationRoutes(api: FastifyInstance, deps: { authenticate?: preHandlerAsyncHookHandler } = {}): RouteRegistrar {
  return (op, handler) => {
    if (op.auth && !deps.authenticate) throw new Error(`${op.operationId} needs sign-in: pass authenticate`);
    const url = api.prefix && op.path.startsWith(`${api.prefix}/`) ? op.path.slice(api.prefix.length) : op.path;
    api.route({
      method: op.method,
      url,
      config: { operation: op },
      ...(op.auth && deps.authenticate ? { preHandler: deps.authenticate } : {}),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const input = readInput(op, request);
        // The success status unless the handler chooses another (health/ answers 503 when degraded).
        void reply.status(op.ok?.status ?? 200);
        // readInput built the input from this entry's own schemas; TypeScript cannot follow the
        // entry's type through the record it reads, so the handler's typed input is asserted here, once.
        const result = await handler(input as ServerInput<typeof op>, { request, reply });
        if (reply.sent) return reply;
        if (op.ok?.contentType !== undefined) return reply.send(result);
        let data: unknown = result;
        if (op.idempotent) {
          const answer = result as Replayable<unknown>;
          if (answer.replayed) void reply.header('idempotent-replayed', 'true');
          data = answer.data;
        }
        return reply.send(op.ok?.envelope === false ? data : { success: true, data });
      },
    });
  };
}

/**
 * The request as the entry declares it, in the order a client is told about its mistakes: the
 * role (a call for another role is 403 whatever it sends), then the ids (404), then the
 * parameters, query and body (400).
 */
function readInput(op: OperationSpec, request: FastifyRequest): ServerInput<OperationSpec> {
  if (op.roles) requireRole(request.auth, ...op.roles);
  const pathValues = (request.params ?? {}) as Record<string, string | undefined>;
  const ids: Record<string, number> = {};
  for (const [name, resource] of Object.entries(op.ids ?? {})) ids[name] = pathId(pathValues[name], resource);
  const account = op.account ? accountParam(request) : undefined;
  return {
    ids,
    params: op.params ? parseInput(op.params, request.params, 'params') : undefined,
    query: op.query ? parseInput(op.query, op.account ? withoutAccount(request.query) : request.query, 'query') : undefined,
    body: op.body ? readBody(op.body, request.body) : undefined,
    idempotencyKey: op.idempotent ? parseIdempotencyKey(request.headers['idempotency-key']) : undefined,
    account,
  } as ServerInput<OperationSpec>;
}

/** The query without `account`, which every entry with `account` takes beside its own query. */
function withoutAccount(query: unknown): unknown {
  if (typeof query !== 'object' || query === null || !('account' in query)) return query;
  const { account: _, ...rest } = query as Record<string, unknown>;
  return rest;
}

function readBody(spec: NonNullable<OperationSpec['body']>, raw: unknown): unknown {
  const value = spec.required ? raw : (raw ?? {});
  if (!spec.lenient) return parseInput(spec.schema, value);
  const read = spec.schema.safeParse(value);
  return read.success ? read.data : undefined;
}

/** `next` / `previous`: the same path and query with another page (relative URLs). */
export function pageLink(request: FastifyRequest, page: number): string {
  const [path, query = ''] = request.url.split('?', 2);
  const params = new URLSearchParams(query);
  params.set('page', String(page));
  return `${path}?${params.toString()}`;
}

/** A page answer (orders/, journal/, a student's): the spec's shape, no envelope, links keeping the query. */
export function pageAnswer<T>(request: FastifyRequest, page: { count: number; page: number; pageSize: number; results: T[] }) {
  const lastPage = Math.max(1, Math.ceil(page.count / page.pageSize));
  return {
    count: page.count,
    next: page.page < lastPage ? pageLink(request, page.page + 1) : null,
    previous: page.page > 1 ? pageLink(request, Math.min(page.page - 1, lastPage)) : null,
    results: page.results,
  };
}
