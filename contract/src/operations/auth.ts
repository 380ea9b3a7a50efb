import { changePasswordRequestSchema, changePasswordResponseSchema } from '../academy.js';
import {
  loginRequestSchema,
  loginResponseSchema,
  logoutRequestSchema,
  logoutResponseSchema,
  refreshRequestSchema,
  refreshResponseSchema,
  userSchema,
} from '../auth.js';
import { error, tooMany429, validation400 } from './answers.js';
import { defineOperation } from './define.js';

/** Sign-in, tokens, sessions and the password. */
export const authOperations = {
  login: defineOperation({
    method: 'POST',
    path: '/api/auth/login/',
    operationId: 'login',
    summary: 'Sign in',
    description: 'Any failure is 401 "Invalid email or password"; repeated failures 429 with `Retry-After`.',
    tag: 'auth',
    auth: false,
    writes: true,
    body: { schema: loginRequestSchema, required: true },
    ok: { status: 200, description: 'An access token, a refresh token and the user.', data: loginResponseSchema },
    errors: {
      400: validation400,
      401: error('`INVALID_CREDENTIALS`.'),
      429: tooMany429('too many failed sign-ins'),
    },
  }),
  refresh: defineOperation({
    method: 'POST',
    path: '/api/auth/refresh/',
    operationId: 'refresh',
    summary: 'Rotate the refresh token',
    description: 'Single use: a spent or revoked refresh token ends its whole session and answers 401.',
    tag: 'auth',
    auth: false,
    writes: true,
    body: { schema: refreshRequestSchema, required: true },
    ok: { status: 200, description: 'A new access token and a new refresh token.', data: refreshResponseSchema },
    errors: {
      400: validation400,
      401: error('`INVALID_TOKEN`: unknown, expired, spent or revoked.'),
    },
  }),
  logout: defineOperation({
    method: 'POST',
    path: '/api/auth/logout/',
    operationId: 'logout',
    summary: 'Sign out',
    description: 'Ends the bearer token’s session and the given refresh token’s; always 200, a malformed body included.',
    tag: 'auth',
    auth: false,
    writes: true,
    body: { schema: logoutRequestSchema, required: false, lenient: true },
    ok: { status: 200, description: 'Signed out.', data: logoutResponseSchema },
  }),
  me: defineOperation({
    method: 'GET',
    path: '/api/auth/me/',
    operationId: 'me',
    summary: 'The signed-in user',
    tag: 'auth',
    auth: true,
    writes: false,
    ok: { status: 200, description: 'The user.', data: userSchema },
  }),
  changePassword: defineOperation({
    method: 'POST',
    path: '/api/auth/change-password/',
    operationId: 'changePassword',
    summary: 'Change the password',
    description:
      'Ends every other session of the user; clears a temporary password. The only call besides me/ and academy/me/ a temporary password may make (docs/academy.md#temporary-passwords).',
    tag: 'auth',
    auth: true,
    writes: true,
    body: { schema: changePasswordRequestSchema, required: true },
    ok: { status: 200, description: 'Changed.', data: changePasswordResponseSchema },
    errors: {
      400: error('Validation failed, or `current_password` is not the current password.'),
      429: tooMany429('too many wrong current passwords'),
    },
  }),
} as const;
