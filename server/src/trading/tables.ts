/** Tables of the trading module. */
export type TradingTables = {};
