-- The triggers a /declare call diffs (docs/api/declare-and-bulk.md, what is cancelled):
-- a project's registered, skipped, retrying and queued one-shots and
-- instances carrying the tag. An instance is judged by its own tags (it
-- keeps those it was made with), not its recurring trigger's: the upcoming
-- instance of a recurring trigger carrying the tag always carries it too.
-- Locked in creation order, so the scheduler skips them until the call ends
-- and two calls lock in the same order. The body is compared by its hash.
-- Found through the GIN index of pending tagged triggers' tags
-- (triggers_pending_tags_idx), whose predicate is repeated
-- (`cardinality(tags) > 0`).
-- Params: $1 project_id, $2 tag.
-- Returns one row per trigger, oldest first.
SELECT t.id::text AS id, t.generator_id::text AS "generatorId", t.custom_key AS "customKey",
       t.status::text AS status, t.scheduled_at AS "scheduledAt", t.title, t.url, t.method, t.headers,
       encode(sha256(t.body), 'hex') AS "bodyHash", t.tags, t.created_at AS "createdAt", t.part_day::text AS "partDay",
       t.attempts > 0 AS attempted
FROM triggers t
WHERE t.project_id = $1::uuid AND t.tags @> ARRAY[$2::text]
  AND t.status IN ('registered', 'skipped', 'retrying', 'queued') AND cardinality(t.tags) > 0
  AND (t.status <> 'skipped' OR t.updated_at >= (SELECT coalesce(max(cutoff), '-infinity') FROM retention_state))
ORDER BY t.created_at, t.id
FOR UPDATE OF t
