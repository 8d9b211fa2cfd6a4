-- Day partitions still attached to some of triggers, executions and
-- trigger_tags but not to all three: what a pass leaves when it was cut off
-- while detaching a day one table at a time (ensure_partitions makes a
-- day's three tables in one statement). The pass had moved every row that
-- must stay out of that day before it began to detach it. Each bound is
-- read once and the days counted by it (a year of days: tens of ms).
-- Params: none. Returns parent, partition and PostgreSQL's bound text.
WITH parts AS MATERIALIZED (
  SELECT p.relname AS parent, c.relname AS partition, pg_get_expr(c.relpartbound, c.oid) AS bound
  FROM pg_inherits i
  JOIN pg_class c ON c.oid = i.inhrelid
  JOIN pg_class p ON p.oid = i.inhparent
  -- this install's tables only: another schema of the database may hold its own
  WHERE i.inhparent IN ('triggers'::regclass, 'executions'::regclass, 'trigger_tags'::regclass) AND NOT i.inhdetachpending
)
SELECT parent, partition, bound
FROM parts
WHERE bound IN (SELECT bound FROM parts GROUP BY bound HAVING count(*) < 3)
