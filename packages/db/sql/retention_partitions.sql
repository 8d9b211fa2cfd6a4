-- The day partitions of triggers with their executions and trigger_tags
-- counterparts (same bounds), and PostgreSQL's row estimates. Partitions
-- whose detach was interrupted are left out (retention finishes those
-- first).
-- Params: none. Returns one row per day (or the legacy range); bound is
-- PostgreSQL's text, e.g. FOR VALUES FROM ('2026-11-25') TO ('2026-11-26')
-- or FROM (MINVALUE) TO (…).
SELECT t.relname AS "triggersTable", e.relname AS "executionsTable", g.relname AS "tagsTable",
       pg_get_expr(t.relpartbound, t.oid) AS bound,
       greatest(t.reltuples, 0)::float8 AS "triggerRowsEstimate", greatest(e.reltuples, 0)::float8 AS "executionRowsEstimate"
FROM pg_inherits ti
JOIN pg_class t ON t.oid = ti.inhrelid
JOIN pg_inherits ei ON ei.inhparent = 'executions'::regclass AND NOT ei.inhdetachpending
JOIN pg_class e ON e.oid = ei.inhrelid AND pg_get_expr(e.relpartbound, e.oid) = pg_get_expr(t.relpartbound, t.oid)
JOIN pg_inherits gi ON gi.inhparent = 'trigger_tags'::regclass AND NOT gi.inhdetachpending
JOIN pg_class g ON g.oid = gi.inhrelid AND pg_get_expr(g.relpartbound, g.oid) = pg_get_expr(t.relpartbound, t.oid)
WHERE ti.inhparent = 'triggers'::regclass AND NOT ti.inhdetachpending
