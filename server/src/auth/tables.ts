/** Tables of the auth module (users, sessions, login attempts). */
export type AuthTables = {};
