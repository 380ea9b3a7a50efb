import { z } from 'zod';
import { text } from './common.js';

/** Passwords: 8 to 128 characters, never truncated (docs/operations.md#passwords). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export const loginRequestSchema = z.strictObject({
  email: text().trim().min(1, 'is required').max(254).email('must be an e-mail address'),
  password: text().min(1, 'is required').max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const userSchema = z.object({ id: z.number().int(), email: z.string(), full_name: z.string() });
export type UserDto = z.infer<typeof userSchema>;

export const loginResponseSchema = z.object({
  token: z.string(),
  refresh: z.string(),
  user: userSchema,
  /** Seconds until the access token expires. */
  expires_in: z.number().int(),
  /**
   * True after signing in with a temporary password: every call but auth/change-password/,
   * logout, refresh, auth/me/ and academy/me/ answers 403 until it is changed
   * (docs/academy.md#temporary-passwords).
   */
  must_change_password: z.boolean().default(false),
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const refreshRequestSchema = z.strictObject({ refresh: text().min(1, 'is required').max(4096) });
export const refreshResponseSchema = z.object({ access: z.string(), refresh: z.string() });
export type RefreshResponse = z.infer<typeof refreshResponseSchema>;

export const logoutRequestSchema = z.strictObject({ refresh: text().max(4096).optional() });

/** `data` of POST auth/logout/ (always 200). */
export const logoutResponseSchema = z.object({ logged_out: z.literal(true) });
export type LogoutResponse = z.infer<typeof logoutResponseSchema>;

/**
 * A password being set (CLI, future account screens): 8 to 128 characters, never truncated.
 * Counted like loginRequestSchema counts them, so every password that can be set can sign in.
 */
export const newPasswordSchema = text()
  .min(PASSWORD_MIN, `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`)
  .max(PASSWORD_MAX, `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
