-- Every policy that can hold an attempt back: a throughput map, a
-- maxConcurrent, or a pause (docs/api/tag-policies.md, when a limit is
-- reached; pausing a tag).
-- No params. Returns project, tag, the two limits and whether it is paused.
SELECT project_id::text AS "projectId", tag, throughput, max_concurrent AS "maxConcurrent", paused
FROM tag_policies
WHERE (throughput IS NOT NULL AND throughput <> '{}'::jsonb) OR max_concurrent IS NOT NULL OR paused
