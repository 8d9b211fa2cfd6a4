-- Every policy that can hold an attempt back: a throughput map or a
-- maxConcurrent (docs/api/tag-policies.md, when a limit is reached).
-- No params. Returns project, tag and the two limits.
SELECT project_id::text AS "projectId", tag, throughput, max_concurrent AS "maxConcurrent"
FROM tag_policies
WHERE (throughput IS NOT NULL AND throughput <> '{}'::jsonb) OR max_concurrent IS NOT NULL
