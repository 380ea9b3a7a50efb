import {
  answersOf,
  articleSchema,
  candleSchema,
  errorEnvelopeSchema,
  fxPairSchema,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  journalEntrySchema,
  type OperationSpec,
  orderRejectedSchema,
  orderSchema,
  positionSchema,
  priceSchema,
  tradeSchema,
  tradingAccountSchema,
  userSchema,
} from '@pipdesk/contract';
import { z } from 'zod';

/** A JSON schema as the document holds it. */
export type JsonSchema = Record<string, unknown>;

export interface OpenApiDocument extends Record<string, unknown> {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, JsonSchema> };
  tags: Array<{ name: string; description: string }>;
}

/** Contract schemas shared by many answers, named once under components/schemas. */
const SHARED_SCHEMAS: Record<string, z.ZodType> = {
  ErrorEnvelope: errorEnvelopeSchema,
  OrderRejected: orderRejectedSchema,
  Order: orderSchema,
  Position: positionSchema,
  Trade: tradeSchema,
  TradingAccount: tradingAccountSchema,
  FxPair: fxPairSchema,
  Price: priceSchema,
  Candle: candleSchema,
  User: userSchema,
  Article: articleSchema,
  JournalEntry: journalEntrySchema,
};

const TAGS = [
  { name: 'auth', description: 'Sign-in, tokens and sessions (docs/api.md#auth-calls).' },
  { name: 'trading', description: 'Orders and positions (docs/api.md#trading-calls, docs/orders.md).' },
  { name: 'market', description: 'Pairs, prices and candles (docs/api.md#market-calls).' },
  { name: 'performance', description: 'Statistics, the equity curve and the journal (docs/performance.md).' },
  { name: 'news', description: 'News (docs/api.md#news-calls).' },
  { name: 'health', description: 'Probes for supervisors and load balancers (docs/operations.md#health).' },
  { name: 'demo', description: 'The spec’s demo calls; demo mode is not implemented.' },
  { name: 'docs', description: 'This document and its page.' },
];

/** A row id in a path (docs/api.md#how-a-call-is-declared): anything else is the call's 404. */
const ID_PARAMETER: JsonSchema = { type: 'string', pattern: '^\\d{1,15}$' };

const IDEMPOTENCY_KEY_PARAMETER: JsonSchema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key with the same request answers the first answer again (marked `Idempotent-Replayed: true`); with another request 422 `IDEMPOTENCY_KEY_REUSED`. docs/trading-rules.md#idempotency.',
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH },
};

const ACCOUNT_PARAMETER: JsonSchema = {
  name: 'account',
  in: 'query',
  required: false,
  description:
    'Which trading account the call acts on: one of the caller’s (its id, from `GET /api/trading/accounts/`), or on the academy’s student calls one of the student’s; the primary account when left out. Any other: 404 `ACCOUNT_NOT_FOUND`. docs/accounts.md#choosing-the-account.',
  schema: ID_PARAMETER,
};

const componentRef = (name: string) => `#/components/schemas/${name}`;

/** `/api/trading/orders/:id/` → `/api/trading/orders/{id}/`. */
export function openApiPath(fastifyPath: string): string {
  return fastifyPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The schema name of an operation's answer for a status. */
export function answerSchemaName(op: OperationSpec, status: number): string {
  return `${op.operationId[0]?.toUpperCase()}${op.operationId.slice(1)}${status}`;
}

/** Drops the keys z.toJSONSchema puts at a schema's root that a component or parameter must not carry. */
function bare(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/** A request schema as a client sends it (before the contract's transforms and defaults). */
function inputSchema(schema: z.ZodType): JsonSchema {
  return bare(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema);
}

/**
 * Builds the OpenAPI 3.1 document from the operations' contract schemas (docs/api.md#openapi).
 * Answers are the schemas' output side (what the server sends), requests their input side.
 */
export function buildOpenApiDocument(operations: readonly OperationSpec[], version: string): OpenApiDocument {
  // One registry of every answer schema: z.toJSONSchema emits each as a component and refers to
  // the shared ones by name, so an order looks the same in every answer.
  const answers = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(SHARED_SCHEMAS)) answers.add(schema, { id });
  const answerIds = new Map<string, string>();
  for (const op of operations) {
    for (const [status, answer] of Object.entries(answersOf(op))) {
      if (!answer.json) continue;
      const existing = answers.get(answer.json)?.id;
      const id = existing ?? answerSchemaName(op, Number(status));
      if (!existing) answers.add(answer.json, { id });
      answerIds.set(`${op.operationId} ${status}`, id);
    }
  }
  const generated = z.toJSONSchema(answers, { uri: componentRef, io: 'output', unrepresentable: 'any' }) as {
    schemas: Record<string, JsonSchema>;
  };
  const schemas = Object.fromEntries(Object.entries(generated.schemas).map(([id, s]) => [id, bare(s)]));

  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) {
    const path = openApiPath(op.path);
    paths[path] = { ...paths[path], [op.method.toLowerCase()]: operationObject(op, answerIds) };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pipdesk API',
      version,
      description:
        'Every call of the Pipdesk server, generated from the zod contract the routes parse and answer with. Most answers are the envelope `{success: true, data}`; failures are `ErrorEnvelope`. Signed-in calls need `Authorization: Bearer <access token>` from `POST /api/auth/login/`. The two sockets, `/ws/trading/` and `/ws/prices/`, are not HTTP calls and are not in this document (docs/api.md#sockets).',
    },
    paths,
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
    tags: TAGS,
  };
}

function operationObject(op: OperationSpec, answerIds: Map<string, string>): JsonSchema {
  const parameters: JsonSchema[] = [];
  const pathNames = [...op.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string);
  const paramSchemas = {
    ...(op.params ? (inputSchema(op.params).properties as Record<string, JsonSchema>) : {}),
    ...Object.fromEntries(Object.keys(op.ids ?? {}).map((name) => [name, ID_PARAMETER])),
  };
  for (const name of pathNames) {
    parameters.push({ name, in: 'path', required: true, schema: paramSchemas[name] ?? { type: 'string' } });
  }
  if (op.query) {
    const query = inputSchema(op.query);
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({ name, in: 'query', required: required.has(name), schema });
    }
  }
  if (op.account) parameters.push(ACCOUNT_PARAMETER);
  if (op.idempotent) parameters.push(IDEMPOTENCY_KEY_PARAMETER);

  const responses: Record<string, JsonSchema> = {};
  for (const [status, answer] of Object.entries(answersOf(op))) {
    const id = answerIds.get(`${op.operationId} ${status}`);
    const content = id
      ? { 'application/json': { schema: { $ref: componentRef(id) } } }
      : { [answer.contentType ?? 'application/octet-stream']: { schema: { type: 'string' } } };
    responses[status] = {
      description: answer.description,
      content,
      ...(answer.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(answer.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
            ),
          }
        : {}),
    };
  }
  responses.default = {
    description: 'Any other failure, in the error envelope (docs/api.md#status-codes).',
    content: { 'application/json': { schema: { $ref: componentRef('ErrorEnvelope') } } },
  };

  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security: op.auth ? [{ bearer: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required,
            content: { 'application/json': { schema: inputSchema(op.body.schema) } },
          },
        }
      : {}),
    responses,
  };
}
