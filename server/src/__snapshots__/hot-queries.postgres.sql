-- accounts.balanceChange
-- parameters: amountMinor, now, accountId
update "trading_accounts" set "balance_minor" = "balance_minor" + $1, "updated_at" = $2 where "id" = $3 returning "balance_minor";

-- accounts.balanceChangeWithEntry
-- parameters: amount_minor, created_at, account_id, account_id, kind, amount_minor, reference, created_at
with "changed" as (update "trading_accounts" set "balance_minor" = "balance_minor" + $1, "updated_at" = $2 where "id" = $3 returning "balance_minor") insert into "ledger_entries" ("account_id", "kind", "amount_minor", "balance_after_minor", "reference", "created_at") values ($4, $5, $6, (select "balance_minor" from "changed"), $7, $8) returning "balance_after_minor";

-- accounts.ledgerInsert
-- parameters: account_id, kind, amount_minor, balance_after_minor, reference, created_at
insert into "ledger_entries" ("account_id", "kind", "amount_minor", "balance_after_minor", "reference", "created_at") values ($1, $2, $3, $4, $5, $6);

-- accounts.lockAccountById
-- parameters: key
select * from "trading_accounts" where "id" = $1 for update;

-- accounts.lockAccountByUser
-- parameters: key
select * from "trading_accounts" where "user_id" = $1 for update;

-- auth.sessionWithUser
-- parameters: sessionId
select "sessions"."id" as "session_id", "sessions"."user_id", "sessions"."revoked_at", "users"."email", "users"."full_name", "users"."is_active", "users"."role", "users"."must_change_password" from "sessions" inner join "users" on "users"."id" = "sessions"."user_id" where "sessions"."id" = $1;

-- equityCurve.insertPoint
-- parameters: account_id, period_id, time, equity_minor, balance_minor
insert into "equity_points" ("account_id", "period_id", "time", "equity_minor", "balance_minor") values ($1, $2, $3, $4, $5);

-- journal.insertEntry
-- parameters: trade_id, period_id, account_id, symbol, realized_pnl_minor, executed_at, "", null, null
insert into "journal_entries" ("trade_id", "period_id", "account_id", "symbol", "realized_pnl_minor", "executed_at", "note", "rating", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- performance.currentPeriod
-- parameters: accountId
select * from "performance_periods" where "account_id" = $1 and "ended_at" is null;

-- performance.insertPairStats
-- parameters: period_id, symbol, trades, wins, losses, net_pnl_minor
insert into "performance_pair_stats" ("period_id", "symbol", "trades", "wins", "losses", "net_pnl_minor") values ($1, $2, $3, $4, $5, $6);

-- performance.pairStatsOf
-- parameters: periodId, symbol
select * from "performance_pair_stats" where "period_id" = $1 and "symbol" = $2;

-- performance.recordClosedTrade
-- parameters: account_id, id, time, equity_minor, balance_minor, id, pair_symbol, pair_trades, pair_wins, pair_losses, pair_net_pnl_minor, journal_trade_id, id, journal_account_id, journal_symbol, journal_realized_pnl_minor, journal_executed_at, "", null, null, closed_trades, wins, losses, breakevens, gross_profit_minor, gross_loss_minor, largest_win_minor, largest_loss_minor, current_win_streak, current_loss_streak, longest_win_streak, longest_loss_streak, peak_equity_minor, max_drawdown_pct, id
with "point" as (insert into "equity_points" ("account_id", "period_id", "time", "equity_minor", "balance_minor") values ($1, $2, $3, $4, $5) returning "id"), "pair" as (insert into "performance_pair_stats" ("period_id", "symbol", "trades", "wins", "losses", "net_pnl_minor") values ($6, $7, $8, $9, $10, $11) on conflict ("period_id", "symbol") do update set "trades" = "excluded"."trades", "wins" = "excluded"."wins", "losses" = "excluded"."losses", "net_pnl_minor" = "excluded"."net_pnl_minor" returning "period_id"), "journal" as (insert into "journal_entries" ("trade_id", "period_id", "account_id", "symbol", "realized_pnl_minor", "executed_at", "note", "rating", "updated_at") values ($12, $13, $14, $15, $16, $17, $18, $19, $20) returning "trade_id") update "performance_periods" set "closed_trades" = $21, "wins" = $22, "losses" = $23, "breakevens" = $24, "gross_profit_minor" = $25, "gross_loss_minor" = $26, "largest_win_minor" = $27, "largest_loss_minor" = $28, "current_win_streak" = $29, "current_loss_streak" = $30, "longest_win_streak" = $31, "longest_loss_streak" = $32, "peak_equity_minor" = $33, "max_drawdown_pct" = $34 where "id" = $35;

-- performance.updatePairStats
-- parameters: trades, wins, losses, net_pnl_minor, period_id, symbol
update "performance_pair_stats" set "trades" = $1, "wins" = $2, "losses" = $3, "net_pnl_minor" = $4 where "period_id" = $5 and "symbol" = $6;

-- performance.updatePeriod
-- parameters: closed_trades, wins, losses, breakevens, gross_profit_minor, gross_loss_minor, largest_win_minor, largest_loss_minor, current_win_streak, current_loss_streak, longest_win_streak, longest_loss_streak, peak_equity_minor, max_drawdown_pct, id
update "performance_periods" set "closed_trades" = $1, "wins" = $2, "losses" = $3, "breakevens" = $4, "gross_profit_minor" = $5, "gross_loss_minor" = $6, "largest_win_minor" = $7, "largest_loss_minor" = $8, "current_win_streak" = $9, "current_loss_streak" = $10, "longest_win_streak" = $11, "longest_loss_streak" = $12, "peak_equity_minor" = $13, "max_drawdown_pct" = $14 where "id" = $15;

-- performance.updatePeriodWithPoint
-- parameters: account_id, id, time, equity_minor, balance_minor, closed_trades, wins, losses, breakevens, gross_profit_minor, gross_loss_minor, largest_win_minor, largest_loss_minor, current_win_streak, current_loss_streak, longest_win_streak, longest_loss_streak, peak_equity_minor, max_drawdown_pct, id
with "point" as (insert into "equity_points" ("account_id", "period_id", "time", "equity_minor", "balance_minor") values ($1, $2, $3, $4, $5) returning "id") update "performance_periods" set "closed_trades" = $6, "wins" = $7, "losses" = $8, "breakevens" = $9, "gross_profit_minor" = $10, "gross_loss_minor" = $11, "largest_win_minor" = $12, "largest_loss_minor" = $13, "current_win_streak" = $14, "current_loss_streak" = $15, "longest_win_streak" = $16, "longest_loss_streak" = $17, "peak_equity_minor" = $18, "max_drawdown_pct" = $19 where "id" = $20;

-- trading.fillNewPosition
-- parameters: position_account_id, position_pair_id, position_symbol, position_quantity_centilots, position_average_entry_price_e10, position_realized_pnl_minor, position_status, position_created_at, position_updated_at, position_closed_at, position_stop_loss_e10, position_take_profit_e10, position_trailing_stop_pips, account_id, pair_id, symbol, order_type, side, quantity_centilots, filled_quantity_centilots, price_e10, average_fill_price_e10, status, rejection_reason, reason, client_price_e10, submitted_at, created_at, updated_at, time_in_force, expires_at, limit_price_e10, triggered_at, stop_loss_e10, take_profit_e10, trailing_stop_pips, trade_account_id, trade_pair_id, trade_symbol, trade_side, trade_quantity_centilots, trade_price_e10, trade_realized_pnl_minor, trade_executed_at
with "fill_position" as (insert into "positions" ("account_id", "pair_id", "symbol", "quantity_centilots", "average_entry_price_e10", "realized_pnl_minor", "status", "created_at", "updated_at", "closed_at", "stop_loss_e10", "take_profit_e10", "trailing_stop_pips") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning "id"), "fill_order" as (insert into "orders" ("account_id", "pair_id", "symbol", "order_type", "side", "quantity_centilots", "filled_quantity_centilots", "price_e10", "average_fill_price_e10", "status", "rejection_reason", "reason", "client_price_e10", "submitted_at", "created_at", "updated_at", "time_in_force", "expires_at", "limit_price_e10", "triggered_at", "stop_loss_e10", "take_profit_e10", "trailing_stop_pips", "position_id") values ($14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, (select "id" from "fill_position")) returning "id") insert into "trades" ("account_id", "pair_id", "symbol", "side", "quantity_centilots", "price_e10", "realized_pnl_minor", "executed_at", "position_id", "order_id") values ($37, $38, $39, $40, $41, $42, $43, $44, (select "id" from "fill_position"), (select "id" from "fill_order")) returning "id", "order_id", "position_id";

-- trading.fillPosition
-- parameters: position_quantity_centilots, position_average_entry_price_e10, position_realized_pnl_minor, position_status, position_updated_at, position_closed_at, position_stop_loss_e10, position_take_profit_e10, position_trailing_stop_pips, position_protection_version, position_id, account_id, pair_id, symbol, order_type, side, quantity_centilots, filled_quantity_centilots, price_e10, average_fill_price_e10, status, rejection_reason, reason, client_price_e10, submitted_at, created_at, updated_at, time_in_force, expires_at, limit_price_e10, triggered_at, stop_loss_e10, take_profit_e10, trailing_stop_pips, trade_account_id, trade_pair_id, trade_symbol, trade_side, trade_quantity_centilots, trade_price_e10, trade_realized_pnl_minor, trade_executed_at
with "fill_position" as (update "positions" set "quantity_centilots" = $1, "average_entry_price_e10" = $2, "realized_pnl_minor" = $3, "status" = $4, "updated_at" = $5, "closed_at" = $6, "stop_loss_e10" = $7, "take_profit_e10" = $8, "trailing_stop_pips" = $9, "protection_version" = $10 where "id" = $11 returning "id"), "fill_order" as (insert into "orders" ("account_id", "pair_id", "symbol", "order_type", "side", "quantity_centilots", "filled_quantity_centilots", "price_e10", "average_fill_price_e10", "status", "rejection_reason", "reason", "client_price_e10", "submitted_at", "created_at", "updated_at", "time_in_force", "expires_at", "limit_price_e10", "triggered_at", "stop_loss_e10", "take_profit_e10", "trailing_stop_pips", "position_id") values ($12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, (select "id" from "fill_position")) returning "id") insert into "trades" ("account_id", "pair_id", "symbol", "side", "quantity_centilots", "price_e10", "realized_pnl_minor", "executed_at", "position_id", "order_id") values ($35, $36, $37, $38, $39, $40, $41, $42, (select "id" from "fill_position"), (select "id" from "fill_order")) returning "id", "order_id", "position_id";

-- trading.idempotencyKeyOfUser
-- parameters: userId, key
select * from "idempotency_keys" where "user_id" = $1 and "idempotency_key" = $2;

-- trading.insertIdempotencyKey
-- parameters: user_id, idempotency_key, request_hash, response_status, response_body, created_at
insert into "idempotency_keys" ("user_id", "idempotency_key", "request_hash", "response_status", "response_body", "created_at") values ($1, $2, $3, $4, $5, $6) returning "id";

-- trading.insertOrder
-- parameters: account_id, pair_id, symbol, order_type, side, quantity_centilots, filled_quantity_centilots, price_e10, average_fill_price_e10, status, rejection_reason, reason, position_id, client_price_e10, submitted_at, created_at, updated_at, time_in_force, expires_at, limit_price_e10, triggered_at, stop_loss_e10, take_profit_e10, trailing_stop_pips
insert into "orders" ("account_id", "pair_id", "symbol", "order_type", "side", "quantity_centilots", "filled_quantity_centilots", "price_e10", "average_fill_price_e10", "status", "rejection_reason", "reason", "position_id", "client_price_e10", "submitted_at", "created_at", "updated_at", "time_in_force", "expires_at", "limit_price_e10", "triggered_at", "stop_loss_e10", "take_profit_e10", "trailing_stop_pips") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24) returning "id";

-- trading.insertPosition
-- parameters: account_id, pair_id, symbol, quantity_centilots, average_entry_price_e10, realized_pnl_minor, status, created_at, updated_at, closed_at, stop_loss_e10, take_profit_e10, trailing_stop_pips
insert into "positions" ("account_id", "pair_id", "symbol", "quantity_centilots", "average_entry_price_e10", "realized_pnl_minor", "status", "created_at", "updated_at", "closed_at", "stop_loss_e10", "take_profit_e10", "trailing_stop_pips") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning "id";

-- trading.insertTrade
-- parameters: account_id, order_id, position_id, pair_id, symbol, side, quantity_centilots, price_e10, realized_pnl_minor, executed_at
insert into "trades" ("account_id", "order_id", "position_id", "pair_id", "symbol", "side", "quantity_centilots", "price_e10", "realized_pnl_minor", "executed_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning "id";

-- trading.markStopLimitTriggered
-- parameters: at, at, id
update "orders" set "triggered_at" = $1, "updated_at" = $2 where "id" = $3 and "status" = 'PENDING' and "order_type" = 'STOP_LIMIT' and "triggered_at" is null returning "id";

-- trading.openPositionsOfAccount
-- parameters: accountId
select * from "positions" where "account_id" = $1 and "status" = 'OPEN';

-- trading.orderById
-- parameters: id
select * from "orders" where "id" = $1;

-- trading.orderReads
-- parameters: accountId, userId, key, accountId, accountId, symbol
select 'position' as "kind", to_jsonb("p") as "row" from "positions" as "p" where "p"."account_id" = $1 and "p"."status" = 'OPEN' union all select 'key' as "kind", to_jsonb("k") as "row" from "idempotency_keys" as "k" where "k"."user_id" = $2 and "k"."idempotency_key" = $3 union all select 'period' as "kind", to_jsonb("r") as "row" from "performance_periods" as "r" where "r"."account_id" = $4 and "r"."ended_at" is null union all select 'pair_stats' as "kind", to_jsonb("s") as "row" from "performance_pair_stats" as "s" inner join "performance_periods" as "sr" on "sr"."id" = "s"."period_id" where "sr"."account_id" = $5 and "sr"."ended_at" is null and "s"."symbol" = $6;

-- trading.pendingOrdersOfAccount
-- parameters: accountId
select * from "orders" where "account_id" = $1 and "status" = 'PENDING' order by "id";

-- trading.positionById
-- parameters: id
select * from "positions" where "id" = $1;

-- trading.saveTrailingStop
-- parameters: stopLoss, id, version, 0, 0, stopLoss, 0, stopLoss
update "positions" set "stop_loss_e10" = $1 where "id" = $2 and "status" = 'OPEN' and "protection_version" = $3 and ("trailing_stop_pips" is not null or "protection_version" > $4) and ("stop_loss_e10" is null or ("quantity_centilots" > $5 and "stop_loss_e10" < $6) or ("quantity_centilots" < $7 and "stop_loss_e10" > $8)) returning "id";

-- trading.settlePendingOrder
-- parameters: status, filled_quantity_centilots, average_fill_price_e10, rejection_reason, position_id, updated_at, id
update "orders" set "status" = $1, "filled_quantity_centilots" = $2, "average_fill_price_e10" = $3, "rejection_reason" = $4, "position_id" = $5, "updated_at" = $6 where "id" = $7 and "status" = 'PENDING' returning "id";

-- trading.updatePosition
-- parameters: quantity_centilots, average_entry_price_e10, realized_pnl_minor, status, updated_at, closed_at, stop_loss_e10, take_profit_e10, trailing_stop_pips, protection_version, id
update "positions" set "quantity_centilots" = $1, "average_entry_price_e10" = $2, "realized_pnl_minor" = $3, "status" = $4, "updated_at" = $5, "closed_at" = $6, "stop_loss_e10" = $7, "take_profit_e10" = $8, "trailing_stop_pips" = $9, "protection_version" = $10 where "id" = $11;
