import type { z } from 'zod';
import { envelope } from '../common.js';
import { errorEnvelopeSchema } from '../errors.js';

// How a call is declared, once (docs/api.md#how-a-call-is-declared): the server registers its
// route from the entry, the OpenAPI document is generated from it and the web calls it through
// `api.call(entry, input)`. Nothing else names a call's method, path or schemas.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A documented answer that is not the call's success (an error, or the second shape of a success). */
export interface ApiAnswer {
  description: string;
  /** A JSON body described by a contract schema, envelope included. */
  json?: z.ZodType;
  /** A body that is not JSON (CSV, HTML): its content type only. */
  contentType?: string;
  /** Headers the answer carries, named with what they mean. */
  headers?: Record<string, string>;
}

/** The call's success answer. */
export interface OkAnswer {
  status: 200 | 201;
  description: string;
  /** The answer's data: inside `{success: true, data}` unless `envelope` is false (the spec's page and news shapes). */
  data?: z.ZodType;
  /** Defaults to true; false for the shapes the spec fixes without the envelope. */
  envelope?: boolean;
  /** A body that is not JSON (CSV, HTML): its content type. */
  contentType?: string;
}

/** The limits a call counts against beside every call's own (docs/operations.md#rate-limits). */
export type RateLimitName = 'orders' | 'news-refresh';

/** What a row id in a path names; each has its 404 (`ORDER_NOT_FOUND`, …; a trade's is `NOT_FOUND`). */
export type IdResource = 'order' | 'position' | 'cohort' | 'student' | 'trade' | 'drawing' | 'alert' | 'program' | 'replay';

/** The roles a call is for; checked before anything else of the request is read (docs/academy.md#scope). */
export type CallerRole = 'trader' | 'instructor' | 'admin';

export interface OperationSpec {
  method: HttpMethod;
  /** Fastify's form, under /api, trailing slash as the spec has it: `/api/trading/orders/:id/`. */
  path: string;
  operationId: string;
  summary: string;
  /** More words, Markdown (the docs page renders it). */
  description?: string;
  tag: string;
  /** Needs `Authorization: Bearer <access token>`. */
  auth: boolean;
  /** Only these roles may call it (403 `FORBIDDEN` for any other). */
  roles?: readonly CallerRole[];
  /**
   * Path parameters that are row ids: a positive integer, or the named 404 (an id that cannot
   * be one of the caller's rows is not found, not malformed).
   */
  ids?: Readonly<Record<string, IdResource>>;
  /** Other path parameters. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** `lenient`: a body its schema refuses is read as none (logout ends the session whatever it is sent). */
  body?: { schema: z.ZodType; required: boolean; lenient?: boolean };
  /**
   * Takes the optional query parameter `account` (docs/accounts.md#choosing-the-account): which
   * trading account the call acts on, the primary one without it. `true`: one of the caller's;
   * `'student'`: one of the path's student's (the academy's student calls, checked after the
   * caller's scope). Any other is 404 `ACCOUNT_NOT_FOUND`.
   */
  account?: true | 'student';
  /** Reads `Idempotency-Key` (docs/trading-rules.md#idempotency); the success answer may be a replay. */
  idempotent?: boolean;
  /** Changes stored state (a client retries only with an Idempotency-Key where `idempotent`). */
  writes: boolean;
  /** Extra rate limits the call counts against. */
  rateLimits?: readonly RateLimitName[];
  /** The success answer; null for a call that never succeeds (the spec's demo calls). */
  ok: OkAnswer | null;
  /** Every other documented answer by status; any status left out is the error envelope. */
  errors?: Readonly<Record<number, ApiAnswer>>;
}

/** Declares a call; the literal type is kept so the server and the web get its exact shapes. */
export function defineOperation<const T extends OperationSpec>(spec: T): T {
  return spec;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type In<S> = S extends z.ZodType ? z.input<S> : undefined;

/** What the server's handler gets: parsed, ids as positive integers. */
export interface ServerInput<Op extends OperationSpec> {
  ids: Op['ids'] extends Readonly<Record<string, IdResource>> ? { [K in keyof Op['ids']]: number } : Record<string, never>;
  params: Out<Op['params']>;
  query: Out<Op['query']>;
  body: Op['body'] extends { schema: infer S; lenient: true }
    ? Out<S> | undefined
    : Op['body'] extends { schema: infer S }
      ? Out<S>
      : undefined;
  /** The Idempotency-Key, when the entry is idempotent and the caller sent one. */
  idempotencyKey: string | undefined;
  /** The account named by `?account=`, checked to be the caller's (entries with `account`); undefined: the primary. */
  account: number | undefined;
}

/** The success answer's data as the server returns it (before the envelope). */
export type OkData<Op extends OperationSpec> = Op['ok'] extends { data: infer S }
  ? S extends z.ZodType
    ? z.output<S>
    : unknown
  : Op['ok'] extends null
    ? never
    : unknown;
/** What the web sends: path values, query and body as the contract's input types. */
export type CallInput<Op extends OperationSpec> = (Op['ids'] extends Readonly<Record<string, IdResource>>
  ? { ids: { [K in keyof Op['ids']]: number | string } }
  : { ids?: undefined }) &
  (Op['params'] extends z.ZodType ? { params: In<Op['params']> } : { params?: undefined }) &
  (Op['query'] extends z.ZodType ? { query?: Partial<In<Op['query']>> } : { query?: undefined }) &
  (Op['account'] extends true | 'student' ? { account?: number } : { account?: undefined }) &
  (Op['body'] extends { schema: infer S; required: true }
    ? { body: In<S> }
    : Op['body'] extends { schema: infer S }
      ? { body?: In<S> }
      : { body?: undefined });

/** Every documented answer of a call by status: its success (inside the envelope unless it has none) and the others. */
export function answersOf(op: OperationSpec): Record<number, ApiAnswer> {
  const answers: Record<number, ApiAnswer> = {};
  if (op.ok) {
    const { status, description, data, contentType } = op.ok;
    answers[status] = {
      description,
      ...(data ? { json: op.ok.envelope === false ? data : envelope(data) } : {}),
      ...(contentType ? { contentType } : {}),
    };
  }
  const all: Record<number, ApiAnswer> = { ...answers, ...op.errors };
  if (op.account) {
    const notYours = `\`ACCOUNT_NOT_FOUND\`: the \`account\` named is not one of the ${op.account === 'student' ? 'student’s' : 'caller’s'}.`;
    const found = all[404];
    all[404] = found
      ? { ...found, description: `${found.description} ${notYours}` }
      : { description: notYours, json: errorEnvelopeSchema };
  }
  return all;
}

/** A call's path with its parameters filled in (encoded), still under /api. */
export function pathOf(op: Pick<OperationSpec, 'path'>, values: Record<string, string | number> = {}): string {
  return op.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${op.path}: no value for :${name}`);
    return encodeURIComponent(String(value));
  });
}
