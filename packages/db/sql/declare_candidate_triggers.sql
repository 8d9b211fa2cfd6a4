-- The one-shots a /declare call diffs (docs/api/declare-and-bulk.md, what is cancelled):
-- a project's registered, skipped, retrying and queued one-shots carrying
-- the tag, and the not yet running instances of its active recurring
-- triggers carrying the tag (instances go with their recurring trigger).
-- Locked in creation order, so the scheduler skips them until the call ends
-- and two calls lock in the same order. The body is compared by its hash.
-- The two halves are found separately so each can use its index (the GIN
-- index of pending tagged triggers' tags, whose predicate the one-shot half
-- repeats: `cardinality(tags) > 0`; triggers_generator_idx); an OR of both
-- would scan the whole table. Each row is then found again by its full key
-- (id, part_day), which reads one partition, not every day's.
-- Params: $1 project_id, $2 tag.
-- Returns one row per trigger, oldest first.
SELECT t.id::text AS id, t.generator_id::text AS "generatorId", t.custom_key AS "customKey",
       t.status::text AS status, t.scheduled_at AS "scheduledAt", t.title, t.url, t.method, t.headers,
       encode(sha256(t.body), 'hex') AS "bodyHash", t.tags, t.created_at AS "createdAt", t.part_day::text AS "partDay"
FROM triggers t
WHERE (t.id, t.part_day) IN (
    SELECT o.id, o.part_day FROM triggers o
    WHERE o.project_id = $1::uuid AND o.generator_id IS NULL AND o.tags @> ARRAY[$2::text]
      AND o.status IN ('registered', 'skipped', 'retrying', 'queued') AND cardinality(o.tags) > 0
    UNION ALL
    SELECT i.id, i.part_day FROM generators g
    JOIN triggers i ON i.generator_id = g.id AND i.status IN ('registered', 'skipped', 'retrying', 'queued')
    WHERE g.project_id = $1::uuid AND g.status = 'active' AND g.tags @> ARRAY[$2::text]
  )
  AND t.status IN ('registered', 'skipped', 'retrying', 'queued')
  AND (t.status <> 'skipped' OR t.updated_at >= (SELECT coalesce(max(cutoff), '-infinity') FROM retention_state))
ORDER BY t.created_at, t.id
FOR UPDATE OF t
