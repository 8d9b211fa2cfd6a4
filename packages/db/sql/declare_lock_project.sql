-- Serialize the /declare and /bulk calls of one project for the rest of the
-- transaction: each reads a set of triggers, diffs it and writes it back, and
-- two overlapping calls would both create the same keys.
-- Params: $1 project_id.
SELECT pg_advisory_xact_lock(hashtextextended('declare:' || $1, 0))::text AS locked
