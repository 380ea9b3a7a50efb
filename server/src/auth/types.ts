/** The signed-in trader a request or socket acts for; set by the auth module. */
export interface AuthUser {
  userId: number;
  email: string;
  fullName: string;
  /** The session (refresh-token family) the access token belongs to. */
  sessionId: string;
  /** Access token expiry, epoch ms. */
  expiresAt: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Present on routes behind `auth.authenticate`. */
    auth: AuthUser;
  }
}
