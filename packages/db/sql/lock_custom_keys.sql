-- The locks of lock_custom_key.sql for every custom key a /declare or /bulk
-- call writes, taken in bucket order (so that two such calls never wait
-- for each other in a cycle; /schedule and /cancel take one). Without them
-- a /schedule creating a key and a /bulk upsert of it, at the same moment,
-- would each miss the other's uncommitted row and both create one.
-- Params: $1 project_id, $2 custom keys (text[]).
SELECT count(pg_advisory_xact_lock(hashtext($1), b))::text AS locked
FROM (SELECT DISTINCT (hashtextextended(k, 0) & 127)::int AS b FROM unnest($2::text[]) AS k ORDER BY b) buckets
