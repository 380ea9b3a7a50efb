import type { Generated } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  /** Lower-cased; unique, so e-mails are case-insensitive. */
  email: string;
  /** `$scrypt$ln=…,r=…,p=…$salt$hash` (see passwords.ts). */
  password_hash: string;
  full_name: string;
  /** 1 active, 0 disabled (integers behave the same on SQLite and PostgreSQL). */
  is_active: number;
  created_at: number;
  updated_at: number;
  /** Who the user is to the academy (docs/academy.md#roles); added by the academy's migration. */
  role: Generated<'trader' | 'instructor' | 'admin'>;
  /** 1 while the password is a temporary one: every call but a few answers 403 (docs/academy.md#temporary-passwords). */
  must_change_password: Generated<number>;
}

export type SessionEndReason = 'logout' | 'refresh_reuse' | 'user_disabled' | 'password_reset' | 'password_changed';

/** A sign-in: the family of refresh tokens issued from one login. Access tokens name it in `sid`. */
export interface SessionsTable {
  /** Random, url-safe. */
  id: string;
  user_id: number;
  created_at: number;
  last_refreshed_at: number;
  /** Set once; every token of the session is dead from then on. */
  revoked_at: number | null;
  revoked_reason: SessionEndReason | null;
}

/** One row per refresh token issued; single-use: `used_at` is set by the refresh that spends it. */
export interface RefreshTokensTable {
  /** The token's `jti`. */
  id: string;
  session_id: string;
  issued_at: number;
  expires_at: number;
  used_at: number | null;
}

export type LoginFailureScope = 'account' | 'address';

/** Failed sign-ins within the throttle window, per account (e-mail as typed) and per client address. */
export interface LoginFailuresTable {
  id: Generated<number>;
  scope: LoginFailureScope;
  /** Lower-cased e-mail (whether or not such a user exists) or the client address. */
  subject: string;
  failed_at: number;
}

/** Secrets every node must agree on; today only `jwt`, the generated token-signing secret. */
export interface AuthSecretsTable {
  name: string;
  value: string;
  created_at: number;
}

/** Tables of the auth module (users, sessions, refresh tokens, login failures, shared secrets). */
export interface AuthTables {
  users: UsersTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  login_failures: LoginFailuresTable;
  auth_secrets: AuthSecretsTable;
}

// The storage layer knows no feature: this module adds its tables to the app's Database type.
declare module '../db/schema.js' {
  interface Database extends AuthTables {}
}
