/** docs/screens.md#sign-in-and-session: the access token counts as expired 5 minutes early. */
export const EARLY_EXPIRY_MS = 5 * 60_000;
/** docs/screens.md#sign-in-and-session: the automatic refresh runs 10 minutes before the access token expires. */
export const REFRESH_LEAD_MS = 10 * 60_000;
/** docs/screens.md#sign-in-and-session: when the token expires sooner than that, the refresh runs after 1 second. */
export const SOON_REFRESH_DELAY_MS = 1_000;
/** How long a scheduled refresh that got no answer waits before trying again. */
export const REFRESH_RETRY_MS = 30_000;

interface JwtClaims {
  exp?: number;
  iat?: number;
}

/** The claims of a JWT, read without verifying it (only the server can); null when it is not a JWT. */
export function readClaims(token: string): JwtClaims | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const base64 = payload
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(payload.length / 4) * 4, '=');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof claims === 'object' && claims !== null ? (claims as JwtClaims) : null;
  } catch {
    return null;
  }
}

/** When the token expires, in epoch ms; null when it carries no `exp`. */
export function expiresAt(token: string): number | null {
  const exp = readClaims(token)?.exp;
  return typeof exp === 'number' ? exp * 1000 : null;
}

/** An access token is usable until 5 minutes before it expires. */
export function isAccessTokenUsable(token: string, now: number): boolean {
  const exp = expiresAt(token);
  return exp !== null && exp - EARLY_EXPIRY_MS > now;
}

/** A refresh token without a readable expiry is left for the server to judge. */
export function isRefreshTokenUsable(token: string, now: number): boolean {
  const exp = expiresAt(token);
  return exp === null || exp > now;
}

/**
 * Milliseconds until the automatic refresh of this access token: 10 minutes before it
 * expires, or after 1 second when that moment has passed. Null when the token has no expiry.
 */
export function refreshDelay(token: string, now: number): number | null {
  const claims = readClaims(token);
  if (typeof claims?.exp !== 'number') return null;
  const exp = claims.exp * 1000;
  const delay = exp - REFRESH_LEAD_MS - now;
  if (delay >= SOON_REFRESH_DELAY_MS) return delay;
  // A server configured with tokens living 10 minutes or less would otherwise be asked for a
  // new token every second, forever: refresh such fresh tokens at three quarters of their life.
  if (typeof claims.iat === 'number' && exp - claims.iat * 1000 <= REFRESH_LEAD_MS) {
    return Math.max(SOON_REFRESH_DELAY_MS, Math.floor((exp - now) * 0.75));
  }
  return SOON_REFRESH_DELAY_MS;
}
