import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../core/clock.js';
import { errors } from '../errors.js';

export type TokenType = 'access' | 'refresh';

/** What a verified token says. */
export interface TokenClaims {
  type: TokenType;
  userId: number;
  sessionId: string;
  /** Unique per token; a refresh token's `jti` is its row in `refresh_tokens`. */
  tokenId: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface TokenSettings {
  jwtSecret: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
}

const ISSUER = 'pipdesk';
// The allowlist: anything else (alg:none, RS256 with our secret as a "public key", …) fails.
const ALGORITHMS = ['HS256'];

/** Random url-safe ids for sessions and token ids (128 bits). */
export function newTokenId(): string {
  return randomBytes(16).toString('base64url');
}

/** Signs and verifies the JWTs (HS256). Time comes from the injected clock, so expiry is testable. */
export function createTokens(settings: TokenSettings, clock: Clock) {
  const key = new TextEncoder().encode(settings.jwtSecret);

  async function sign(type: TokenType, userId: number, sessionId: string, tokenId = newTokenId()) {
    const issuedAt = Math.floor(clock.now() / 1000);
    const ttl = type === 'access' ? settings.accessTokenTtlSeconds : settings.refreshTokenTtlSeconds;
    const token = await new SignJWT({ sid: sessionId, typ: type })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(String(userId))
      .setJti(tokenId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ttl)
      .sign(key);
    return { token, tokenId, expiresAt: (issuedAt + ttl) * 1000 };
  }

  /**
   * Verifies signature, algorithm, issuer, expiry and type; any failure is a 401.
   * `expiredGraceSeconds` accepts a token that expired at most that long ago (logout only).
   */
  async function verify(token: string, expected: TokenType, expiredGraceSeconds = 0): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ALGORITHMS,
        issuer: ISSUER,
        currentDate: new Date(clock.now()),
        clockTolerance: expiredGraceSeconds,
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      });
      const userId = Number(payload.sub);
      if (
        payload.typ !== expected ||
        typeof payload.sid !== 'string' ||
        !Number.isSafeInteger(userId) ||
        userId <= 0 ||
        typeof payload.jti !== 'string' ||
        typeof payload.exp !== 'number'
      ) {
        throw new Error('unexpected claims');
      }
      return { type: expected, userId, sessionId: payload.sid, tokenId: payload.jti, expiresAt: payload.exp * 1000 };
    } catch {
      throw errors.invalidToken();
    }
  }

  return { sign, verify };
}

export type Tokens = ReturnType<typeof createTokens>;
