/** Tables of the market module. */
export type MarketTables = {};
