-- The scheduler's lock_active_generators.sql: active recurring triggers
-- among the given ones, locked, leaving out those another transaction holds.
-- An api call that cancels or edits a recurring trigger locks it before its
-- pending instance, the scheduler the other way round (it claims the
-- instance first); waiting here would close a cycle that PostgreSQL breaks
-- only after a second, holding back everything due in the batch. The call
-- holding it creates the next instance itself or cancels the recurring
-- trigger; failing that, the scheduler's sweep gives it one within seconds.
-- Params: $1 generator ids (uuid[]).
SELECT id::text, cron_expr AS "cronExpr", tz, skip_through AS "skipThrough"
FROM generators
WHERE id = ANY($1::uuid[]) AND status = 'active'
ORDER BY id
FOR UPDATE SKIP LOCKED
