-- accounts.balanceChange
-- parameters: amountMinor, now, accountId
update "trading_accounts" set "balance_minor" = "balance_minor" + ?, "updated_at" = ? where "id" = ? returning "balance_minor";

-- accounts.balanceChangeWithEntry
-- parameters: amount_minor, created_at, account_id, account_id, kind, amount_minor, reference, created_at
with "changed" as (update "trading_accounts" set "balance_minor" = "balance_minor" + ?, "updated_at" = ? where "id" = ? returning "balance_minor") insert into "ledger_entries" ("account_id", "kind", "amount_minor", "balance_after_minor", "reference", "created_at") values (?, ?, ?, (select "balance_minor" from "changed"), ?, ?) returning "balance_after_minor";

-- accounts.ledgerInsert
-- parameters: account_id, kind, amount_minor, balance_after_minor, reference, created_at
insert into "ledger_entries" ("account_id", "kind", "amount_minor", "balance_after_minor", "reference", "created_at") values (?, ?, ?, ?, ?, ?);

-- accounts.lockAccountById
-- parameters: key
select * from "trading_accounts" where "id" = ?;

-- accounts.lockAccountByUser
-- parameters: key
select * from "trading_accounts" where "user_id" = ?;

-- auth.sessionWithUser
-- parameters: sessionId
select "sessions"."id" as "session_id", "sessions"."user_id", "sessions"."revoked_at", "users"."email", "users"."full_name", "users"."is_active", "users"."role", "users"."must_change_password" from "sessions" inner join "users" on "users"."id" = "sessions"."user_id" where "sessions"."id" = ?;

-- equityCurve.insertPoint
-- parameters: account_id, period_id, time, equity_minor, balance_minor
insert into "equity_points" ("account_id", "period_id", "time", "equity_minor", "balance_minor") values (?, ?, ?, ?, ?);

-- journal.insertEntry
-- parameters: trade_id, period_id, account_id, symbol, realized_pnl_minor, executed_at, "", null, null
insert into "journal_entries" ("trade_id", "period_id", "account_id", "symbol", "realized_pnl_minor", "executed_at", "note", "rating", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?);

-- performance.currentPeriod
-- parameters: accountId
select * from "performance_periods" where "account_id" = ? and "ended_at" is null;

-- performance.insertPairStats
-- parameters: period_id, symbol, trades, wins, losses, net_pnl_minor
insert into "performance_pair_stats" ("period_id", "symbol", "trades", "wins", "losses", "net_pnl_minor") values (?, ?, ?, ?, ?, ?);

-- performance.pairStatsOf
-- parameters: periodId, symbol
select * from "performance_pair_stats" where "period_id" = ? and "symbol" = ?;

-- performance.recordClosedTrade
-- parameters: account_id, id, time, equity_minor, balance_minor, id, pair_symbol, pair_trades, pair_wins, pair_losses, pair_net_pnl_minor, journal_trade_id, id, journal_account_id, journal_symbol, journal_realized_pnl_minor, journal_executed_at, "", null, null, closed_trades, wins, losses, breakevens, gross_profit_minor, gross_loss_minor, largest_win_minor, largest_loss_minor, current_win_streak, current_loss_streak, longest_win_streak, longest_loss_streak, peak_equity_minor, max_drawdown_pct, id
with "point" as (insert into "equity_points" ("account_id", "period_id", "time", "equity_minor", "balance_minor") values (?, ?, ?, ?, ?) returning "id"), "pair" as (insert into "performance_pair_stats" ("period_id", "symbol", "trades", "wins", "losses", "net_pnl_minor") values (?, ?, ?, ?, ?, ?) on conflict ("period_id", "symbol") do update set "trades" = "excluded"."trades", "wins" = "excluded"."wins", "losses" = "excluded"."losses", "net_pnl_minor" = "excluded"."net_pnl_minor" returning "period_id"), "journal" as (insert into "journal_entries" ("trade_id", "period_id", "account_id", "symbol", "realized_pnl_minor", "executed_at", "note", "rating", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning "trade_id") update "performance_periods" set "closed_trades" = ?, "wins" = ?, "losses" = ?, "breakevens" = ?, "gross_profit_minor" = ?, "gross_loss_minor" = ?, "largest_win_minor" = ?, "largest_loss_minor" = ?, "current_win_streak" = ?, "current_loss_streak" = ?, "longest_win_streak" = ?, "longest_loss_streak" = ?, "peak_equity_minor" = ?, "max_drawdown_pct" = ? where "id" = ?;

-- performance.updatePairStats
-- parameters: trades, wins, losses, net_pnl_minor, period_id, symbol
update "performance_pair_stats" set "trades" = ?, "wins" = ?, "losses" = ?, "net_pnl_minor" = ? where "period_id" = ? and "symbol" = ?;

-- performance.updatePeriod
-- parameters: closed_trades, wins, losses, breakevens, gross_profit_minor, gross_loss_minor, largest_win_minor, largest_loss_minor, current_win_streak, current_loss_streak, longest_win_streak, longest_loss_streak, peak_equity_minor, max_drawdown_pct, id
update "performance_periods" set "closed_trades" = ?, "wins" = ?, "losses" = ?, "breakevens" = ?, "gross_profit_minor" = ?, "gross_loss_minor" = ?, "largest_win_minor" = ?, "largest_loss_minor" = ?, "current_win_streak" = ?, "current_loss_streak" = ?, "longest_win_streak" = ?, "longest_loss_streak" = ?, "peak_equity_minor" = ?, "max_drawdown_pct" = ? where "id" = ?;

-- performance.updatePeriodWithPoint
-- parameters: account_id, id, time, equity_minor, balance_minor, closed_trades, wins, losses, breakevens, gross_profit_minor, gross_loss_minor, largest_win_minor, largest_loss_minor, current_win_streak, current_loss_streak, longest_win_streak, longest_loss_streak, peak_equity_minor, max_drawdown_pct, id
with "point" as (insert into "equity_points" ("account_id", "period_id", "time", "equity_minor", "balance_minor") values (?, ?, ?, ?, ?) returning "id") update "performance_periods" set "closed_trades" = ?, "wins" = ?, "losses" = ?, "breakevens" = ?, "gross_profit_minor" = ?, "gross_loss_minor" = ?, "largest_win_minor" = ?, "largest_loss_minor" = ?, "current_win_streak" = ?, "current_loss_streak" = ?, "longest_win_streak" = ?, "longest_loss_streak" = ?, "peak_equity_minor" = ?, "max_drawdown_pct" = ? where "id" = ?;

-- trading.fillNewPosition
-- parameters: position_account_id, position_pair_id, position_symbol, position_quantity_centilots, position_average_entry_price_e10, position_realized_pnl_minor, position_status, position_created_at, position_updated_at, position_closed_at, position_stop_loss_e10, position_take_profit_e10, position_trailing_stop_pips, account_id, pair_id, symbol, order_type, side, quantity_centilots, filled_quantity_centilots, price_e10, average_fill_price_e10, status, rejection_reason, reason, client_price_e10, submitted_at, created_at, updated_at, time_in_force, expires_at, limit_price_e10, triggered_at, stop_loss_e10, take_profit_e10, trailing_stop_pips, trade_account_id, trade_pair_id, trade_symbol, trade_side, trade_quantity_centilots, trade_price_e10, trade_realized_pnl_minor, trade_executed_at
with "fill_position" as (insert into "positions" ("account_id", "pair_id", "symbol", "quantity_centilots", "average_entry_price_e10", "realized_pnl_minor", "status", "created_at", "updated_at", "closed_at", "stop_loss_e10", "take_profit_e10", "trailing_stop_pips") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id"), "fill_order" as (insert into "orders" ("account_id", "pair_id", "symbol", "order_type", "side", "quantity_centilots", "filled_quantity_centilots", "price_e10", "average_fill_price_e10", "status", "rejection_reason", "reason", "client_price_e10", "submitted_at", "created_at", "updated_at", "time_in_force", "expires_at", "limit_price_e10", "triggered_at", "stop_loss_e10", "take_profit_e10", "trailing_stop_pips", "position_id") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (select "id" from "fill_position")) returning "id") insert into "trades" ("account_id", "pair_id", "symbol", "side", "quantity_centilots", "price_e10", "realized_pnl_minor", "executed_at", "position_id", "order_id") values (?, ?, ?, ?, ?, ?, ?, ?, (select "id" from "fill_position"), (select "id" from "fill_order")) returning "id", "order_id", "position_id";

-- trading.fillPosition
-- parameters: position_quantity_centilots, position_average_entry_price_e10, position_realized_pnl_minor, position_status, position_updated_at, position_closed_at, position_stop_loss_e10, position_take_profit_e10, position_trailing_stop_pips, position_protection_version, position_id, account_id, pair_id, symbol, order_type, side, quantity_centilots, filled_quantity_centilots, price_e10, average_fill_price_e10, status, rejection_reason, reason, client_price_e10, submitted_at, created_at, updated_at, time_in_force, expires_at, limit_price_e10, triggered_at, stop_loss_e10, take_profit_e10, trailing_stop_pips, trade_account_id, trade_pair_id, trade_symbol, trade_side, trade_quantity_centilots, trade_price_e10, trade_realized_pnl_minor, trade_executed_at
with "fill_position" as (update "positions" set "quantity_centilots" = ?, "average_entry_price_e10" = ?, "realized_pnl_minor" = ?, "status" = ?, "updated_at" = ?, "closed_at" = ?, "stop_loss_e10" = ?, "take_profit_e10" = ?, "trailing_stop_pips" = ?, "protection_version" = ? where "id" = ? returning "id"), "fill_order" as (insert into "orders" ("account_id", "pair_id", "symbol", "order_type", "side", "quantity_centilots", "filled_quantity_centilots", "price_e10", "average_fill_price_e10", "status", "rejection_reason", "reason", "client_price_e10", "submitted_at", "created_at", "updated_at", "time_in_force", "expires_at", "limit_price_e10", "triggered_at", "stop_loss_e10", "take_profit_e10", "trailing_stop_pips", "position_id") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (select "id" from "fill_position")) returning "id") insert into "trades" ("account_id", "pair_id", "symbol", "side", "quantity_centilots", "price_e10", "realized_pnl_minor", "executed_at", "position_id", "order_id") values (?, ?, ?, ?, ?, ?, ?, ?, (select "id" from "fill_position"), (select "id" from "fill_order")) returning "id", "order_id", "position_id";

-- trading.idempotencyKeyOfUser
-- parameters: userId, key
select * from "idempotency_keys" where "user_id" = ? and "idempotency_key" = ?;

-- trading.insertIdempotencyKey
-- parameters: user_id, idempotency_key, request_hash, response_status, response_body, created_at
insert into "idempotency_keys" ("user_id", "idempotency_key", "request_hash", "response_status", "response_body", "created_at") values (?, ?, ?, ?, ?, ?) returning "id";

-- trading.insertOrder
-- parameters: account_id, pair_id, symbol, order_type, side, quantity_centilots, filled_quantity_centilots, price_e10, average_fill_price_e10, status, rejection_reason, reason, position_id, client_price_e10, submitted_at, created_at, updated_at, time_in_force, expires_at, limit_price_e10, triggered_at, stop_loss_e10, take_profit_e10, trailing_stop_pips
insert into "orders" ("account_id", "pair_id", "symbol", "order_type", "side", "quantity_centilots", "filled_quantity_centilots", "price_e10", "average_fill_price_e10", "status", "rejection_reason", "reason", "position_id", "client_price_e10", "submitted_at", "created_at", "updated_at", "time_in_force", "expires_at", "limit_price_e10", "triggered_at", "stop_loss_e10", "take_profit_e10", "trailing_stop_pips") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id";

-- trading.insertPosition
-- parameters: account_id, pair_id, symbol, quantity_centilots, average_entry_price_e10, realized_pnl_minor, status, created_at, updated_at, closed_at, stop_loss_e10, take_profit_e10, trailing_stop_pips
insert into "positions" ("account_id", "pair_id", "symbol", "quantity_centilots", "average_entry_price_e10", "realized_pnl_minor", "status", "created_at", "updated_at", "closed_at", "stop_loss_e10", "take_profit_e10", "trailing_stop_pips") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id";

-- trading.insertTrade
-- parameters: account_id, order_id, position_id, pair_id, symbol, side, quantity_centilots, price_e10, realized_pnl_minor, executed_at
insert into "trades" ("account_id", "order_id", "position_id", "pair_id", "symbol", "side", "quantity_centilots", "price_e10", "realized_pnl_minor", "executed_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning "id";

-- trading.markStopLimitTriggered
-- parameters: at, at, id
update "orders" set "triggered_at" = ?, "updated_at" = ? where "id" = ? and "status" = 'PENDING' and "order_type" = 'STOP_LIMIT' and "triggered_at" is null returning "id";

-- trading.openPositionsOfAccount
-- parameters: accountId
select * from "positions" where "account_id" = ? and "status" = 'OPEN';

-- trading.orderById
-- parameters: id
select * from "orders" where "id" = ?;

-- trading.orderReads
-- parameters: accountId, userId, key, accountId, accountId, symbol
select 'position' as "kind", to_jsonb("p") as "row" from "positions" as "p" where "p"."account_id" = ? and "p"."status" = 'OPEN' union all select 'key' as "kind", to_jsonb("k") as "row" from "idempotency_keys" as "k" where "k"."user_id" = ? and "k"."idempotency_key" = ? union all select 'period' as "kind", to_jsonb("r") as "row" from "performance_periods" as "r" where "r"."account_id" = ? and "r"."ended_at" is null union all select 'pair_stats' as "kind", to_jsonb("s") as "row" from "performance_pair_stats" as "s" inner join "performance_periods" as "sr" on "sr"."id" = "s"."period_id" where "sr"."account_id" = ? and "sr"."ended_at" is null and "s"."symbol" = ?;

-- trading.pendingOrdersOfAccount
-- parameters: accountId
select * from "orders" where "account_id" = ? and "status" = 'PENDING' order by "id";

-- trading.positionById
-- parameters: id
select * from "positions" where "id" = ?;

-- trading.saveTrailingStop
-- parameters: stopLoss, id, version, 0, 0, stopLoss, 0, stopLoss
update "positions" set "stop_loss_e10" = ? where "id" = ? and "status" = 'OPEN' and "protection_version" = ? and ("trailing_stop_pips" is not null or "protection_version" > ?) and ("stop_loss_e10" is null or ("quantity_centilots" > ? and "stop_loss_e10" < ?) or ("quantity_centilots" < ? and "stop_loss_e10" > ?)) returning "id";

-- trading.settlePendingOrder
-- parameters: status, filled_quantity_centilots, average_fill_price_e10, rejection_reason, position_id, updated_at, id
update "orders" set "status" = ?, "filled_quantity_centilots" = ?, "average_fill_price_e10" = ?, "rejection_reason" = ?, "position_id" = ?, "updated_at" = ? where "id" = ? and "status" = 'PENDING' returning "id";

-- trading.updatePosition
-- parameters: quantity_centilots, average_entry_price_e10, realized_pnl_minor, status, updated_at, closed_at, stop_loss_e10, take_profit_e10, trailing_stop_pips, protection_version, id
update "positions" set "quantity_centilots" = ?, "average_entry_price_e10" = ?, "realized_pnl_minor" = ?, "status" = ?, "updated_at" = ?, "closed_at" = ?, "stop_loss_e10" = ?, "take_profit_e10" = ?, "trailing_stop_pips" = ?, "protection_version" = ? where "id" = ?;
