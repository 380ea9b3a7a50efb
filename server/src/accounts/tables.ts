/** Tables of the accounts module. */
export type AccountsTables = {};
