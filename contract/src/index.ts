export * from './auth.js';
export * from './common.js';
export * from './currencies.js';
export * from './errors.js';
export * from './market.js';
export * from './news.js';
export * from './socket-codec.js';
export * from './trading.js';
