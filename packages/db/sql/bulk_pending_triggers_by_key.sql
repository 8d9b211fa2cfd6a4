-- The pending one-shots (registered, skipped, retrying) of a project holding
-- any of the given custom keys, which /bulk upserts match whatever their
-- tags (docs/api/declare-and-bulk.md). Locked in creation order.
-- Params: $1 project_id, $2 custom keys (text[]).
-- Returns rows in the shape of declare_candidate_triggers.
SELECT t.id::text AS id, t.generator_id::text AS "generatorId", t.custom_key AS "customKey",
       t.status::text AS status, t.scheduled_at AS "scheduledAt", t.title, t.url, t.method, t.headers,
       encode(sha256(t.body), 'hex') AS "bodyHash", t.tags, t.created_at AS "createdAt", t.part_day::text AS "partDay",
       t.attempts > 0 AS attempted
FROM triggers t
WHERE t.project_id = $1::uuid AND t.custom_key = ANY($2::text[])
  AND t.status IN ('registered', 'skipped', 'retrying') AND t.generator_id IS NULL
  AND (t.status <> 'skipped' OR t.updated_at >= (SELECT coalesce(max(cutoff), '-infinity') FROM retention_state))
ORDER BY t.created_at, t.id
FOR UPDATE OF t
