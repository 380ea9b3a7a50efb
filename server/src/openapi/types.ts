import type { z } from 'zod';

/** HTTP methods the API uses (HEAD copies of GET routes are Fastify's and not documented). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One documented answer of an operation. */
export interface ApiAnswer {
  description: string;
  /** A JSON body described by a contract schema (as the route answers it, envelope included). */
  json?: z.ZodType;
  /** A body that is not JSON (CSV, HTML): its content type only. */
  contentType?: string;
  /** Headers the answer carries, named with what they mean. */
  headers?: Record<string, string>;
}

/**
 * One call of the API (docs/api.md#openapi). Every schema is the contract's, the one the route
 * parses with or answers with, so the document cannot describe something else.
 */
export interface ApiOperation {
  method: HttpMethod;
  /** Fastify's form, under /api, trailing slash as registered: `/api/trading/orders/:id/`. */
  path: string;
  operationId: string;
  summary: string;
  /** More words, Markdown (docs pages render it). */
  description?: string;
  tag: string;
  /** Needs `Authorization: Bearer <access token>`. */
  auth: boolean;
  /** Path parameters; a parameter left out is documented as a string. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: { schema: z.ZodType; required: boolean };
  /** Request headers the call reads, with their meaning (all optional). */
  headers?: Record<string, { description: string; schema: z.ZodType }>;
  /** Answers by status; any other status is the error envelope (the document's `default`). */
  answers: Record<number, ApiAnswer>;
}
