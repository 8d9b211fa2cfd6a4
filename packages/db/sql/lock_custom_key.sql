-- Serialize writers of one custom key in a project for the rest of the
-- transaction, so two calls with the same key cannot both create it. Keys
-- are locked in 128 buckets per project (the two-int advisory lock space,
-- apart from the one-int locks of declare_lock_project.sql), so that
-- /declare and /bulk can lock every key they write with at most 128 locks
-- (lock_custom_keys.sql); two keys of one bucket wait for each other only
-- while one transaction runs.
-- Params: $1 project_id, $2 custom_key.
SELECT pg_advisory_xact_lock(hashtext($1), (hashtextextended($2, 0) & 127)::int)::text AS locked
