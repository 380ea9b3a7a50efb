import { randomBytes, webcrypto } from 'node:crypto';
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

/** How many verified tokens are remembered (about 200 bytes each). */
const VERIFIED_CACHE_SIZE = 10_000;

/** Signs and verifies the JWTs (HS256). Time comes from the injected clock, so expiry is testable. */
export function createTokens(settings: TokenSettings, clock: Clock) {
  // Imported once: given raw bytes, jose imports the key again on every call (a tenth of a
  // millisecond per request, most of the cost of a verification).
  const key = webcrypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(settings.jwtSecret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
  /**
   * Tokens whose signature, algorithm, issuer and claims were already checked, by their exact
   * text: the same bytes always verify the same way, so only the expiry (which depends on the
   * time) is checked again. Every request still checks its session in the database.
   */
  const verified = new Map<string, TokenClaims>();

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
      .sign(await key);
    return { token, tokenId, expiresAt: (issuedAt + ttl) * 1000 };
  }

  /**
   * Verifies signature, algorithm, issuer, expiry and type; any failure is a 401.
   * `expiredGraceSeconds` accepts a token that expired at most that long ago (logout only).
   */
  async function verify(token: string, expected: TokenType, expiredGraceSeconds = 0): Promise<TokenClaims> {
    const known = verified.get(token);
    if (known) {
      // jose's rule: expired once exp <= now - tolerance, in whole seconds.
      const alive = known.expiresAt / 1000 > Math.floor(clock.now() / 1000) - expiredGraceSeconds;
      if (known.type !== expected || !alive) throw errors.invalidToken();
      return known;
    }
    try {
      const { payload } = await jwtVerify(token, await key, {
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
      const claims: TokenClaims = {
        type: expected,
        userId,
        sessionId: payload.sid,
        tokenId: payload.jti,
        expiresAt: payload.exp * 1000,
      };
      if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
      verified.set(token, claims);
      return claims;
    } catch {
      throw errors.invalidToken();
    }
  }

  return { sign, verify };
}

export type Tokens = ReturnType<typeof createTokens>;
