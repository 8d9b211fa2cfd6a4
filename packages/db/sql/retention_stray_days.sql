-- Day tables of triggers, executions or trigger_tags that belong to no
-- partitioned table any more: what a pass leaves when it was cut off
-- between detaching old days and dropping their tables.
-- Params: none. Returns table names.
SELECT c.relname AS "table"
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind = 'r' AND NOT c.relispartition
  AND c.relname ~ '^(triggers|executions|trigger_tags)_p[0-9]{8}$'
