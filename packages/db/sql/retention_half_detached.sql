-- Day partitions still attached to some of triggers, executions and
-- trigger_tags but not to all three: what a pass leaves when it was cut off
-- while detaching a day one table at a time (ensure_partitions makes a
-- day's three tables in one statement). The pass had moved every row that
-- must stay out of that day before it began to detach it.
-- Params: none. Returns parent, partition and PostgreSQL's bound text.
SELECT p.relname AS parent, c.relname AS partition, pg_get_expr(c.relpartbound, c.oid) AS bound
FROM pg_inherits i
JOIN pg_class c ON c.oid = i.inhrelid
JOIN pg_class p ON p.oid = i.inhparent
WHERE p.relname IN ('triggers', 'executions', 'trigger_tags') AND NOT i.inhdetachpending
  AND (
    SELECT count(*)
    FROM pg_inherits i2
    JOIN pg_class c2 ON c2.oid = i2.inhrelid
    JOIN pg_class p2 ON p2.oid = i2.inhparent
    WHERE p2.relname IN ('triggers', 'executions', 'trigger_tags') AND NOT i2.inhdetachpending
      AND pg_get_expr(c2.relpartbound, c2.oid) = pg_get_expr(c.relpartbound, c.oid)
  ) < 3
