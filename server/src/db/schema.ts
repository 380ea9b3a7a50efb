import type { AccountsTables } from '../accounts/tables.js';
import type { AuthTables } from '../auth/tables.js';
import type { MarketTables } from '../market/tables.js';
import type { NewsTables } from '../news/tables.js';
import type { TradingTables } from '../trading/tables.js';

/** The whole database as Kysely sees it: each module declares its own tables. */
export interface Database extends AuthTables, AccountsTables, MarketTables, TradingTables, NewsTables {}
