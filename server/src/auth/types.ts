/** The signed-in trader a request or socket acts for; set by the auth module. */
export interface AuthUser {
  userId: number;
  email: string;
  fullName: string;
  /** The session (refresh-token family) the access token belongs to. */
  sessionId: string;
  /** Access token expiry, epoch ms. */
  expiresAt: number;
  /** Who the user is to the academy, as stored right now (docs/academy.md#roles). */
  role: 'trader' | 'instructor' | 'admin';
  /** Signed in with a temporary password not yet changed (docs/academy.md#temporary-passwords). */
  mustChangePassword: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Present on routes behind `auth.authenticate`. */
    auth: AuthUser;
  }
}
