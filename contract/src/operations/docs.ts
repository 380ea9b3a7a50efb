import { z } from 'zod';
import { defineOperation } from './define.js';

/** The API document itself. */
export const docsOperations = {
  openapi: defineOperation({
    method: 'GET',
    path: '/api/openapi.json',
    operationId: 'openapi',
    summary: 'This document (OpenAPI 3.1)',
    tag: 'docs',
    auth: false,
    writes: false,
    ok: {
      status: 200,
      description: 'The OpenAPI document.',
      data: z.looseObject({ openapi: z.literal('3.1.0') }),
      envelope: false,
    },
  }),
  docsPage: defineOperation({
    method: 'GET',
    path: '/api/docs/',
    operationId: 'docsPage',
    summary: 'The interactive API page',
    tag: 'docs',
    auth: false,
    writes: false,
    ok: { status: 200, description: 'An HTML page that reads /api/openapi.json.', envelope: false, contentType: 'text/html' },
  }),
} as const;
