-- Partitions of triggers, executions or trigger_tags whose DETACH … CONCURRENTLY was
-- interrupted; retention finalizes and drops them.
-- Params: none. Returns parent and partition names.
SELECT p.relname AS parent, c.relname AS partition
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
-- (this install's tables only: another schema of the database may hold its own)
WHERE i.inhdetachpending AND i.inhparent IN ('triggers'::regclass, 'executions'::regclass, 'trigger_tags'::regclass)
