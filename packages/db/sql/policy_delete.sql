-- Delete a project's policy by id (docs/api/tag-policies.md).
-- Triggers keep the tag; attempts started from now on no longer see the
-- policy's limits, timeout or retries.
-- Params: $1 project_id, $2 id. Returns the id when a policy was deleted.
DELETE FROM tag_policies
WHERE project_id = $1::uuid AND id = $2::uuid
RETURNING id::text AS id
