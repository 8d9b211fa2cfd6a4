-- Runs of recurring triggers cancelled on their own, by their instances'
-- IDs, stay cancelled: each recurring trigger's next instance comes after
-- generators.skip_through (docs/concepts.md; docs/cron.md says which run an
-- instance moved to another time stands for). The new values come from
-- skipThroughOnCancel over the rows lock_cancelled_runs.sql locked; a value
-- never moves back.
-- Params: $1 recurring trigger ids (uuid[]), $2 their skip_through
-- (timestamptz[], null: none). Returns the recurring triggers changed.
UPDATE generators g SET skip_through = GREATEST(g.skip_through, x.through)
FROM unnest($1::uuid[], $2::timestamptz[]) AS x(id, through)
WHERE g.id = x.id AND g.status = 'active'
RETURNING g.id::text AS id
