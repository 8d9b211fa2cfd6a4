-- What each `cancels` entry of a /bulk call names (docs/api/declare-and-bulk.md,
-- POST /bulk), before any rule is applied: by ID any trigger or recurring
-- trigger of the project with that ID, whatever its status; by custom key
-- the pending one-shots and active recurring triggers holding it; by tag
-- the registered, skipped, retrying and queued triggers (one-shots and
-- instances) and the active recurring triggers carrying it. A string entry
-- is looked up both by ID and by key; the caller picks.
-- By tag, the one-shots are read through the GIN index of pending tagged
-- triggers (triggers_pending_tags_idx), whose predicate is repeated here.
-- Params: $1 project_id, $2 entries (jsonb: n, by ('id' | 'key' | 'tag' |
-- 'string'), uuid (the value when it is a UUID, else null), value).
-- Returns {n, via ('id' | 'key' | 'tag'), kind, id, customKey, status,
-- createdAt, partDay (a trigger's day; null for a recurring trigger)}.
WITH x AS (
  SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(n int, by text, uuid uuid, value text)
)
SELECT x.n, 'id' AS via, 'job' AS kind, t.id::text AS id, t.custom_key AS "customKey", t.status::text AS status,
       t.created_at AS "createdAt", t.part_day::text AS "partDay"
FROM x JOIN triggers t ON t.id = x.uuid AND t.project_id = $1::uuid
WHERE x.by IN ('id', 'string')
UNION ALL
SELECT x.n, 'id', 'generator', g.id::text, g.custom_key, g.status::text, g.created_at, NULL
FROM x JOIN generators g ON g.id = x.uuid AND g.project_id = $1::uuid
WHERE x.by IN ('id', 'string')
UNION ALL
SELECT x.n, 'key', 'job', t.id::text, t.custom_key, t.status::text, t.created_at, t.part_day::text
FROM x JOIN triggers t ON t.project_id = $1::uuid AND t.custom_key = x.value AND t.generator_id IS NULL
                      AND t.status IN ('registered', 'skipped', 'retrying')
WHERE x.by IN ('key', 'string')
UNION ALL
SELECT x.n, 'key', 'generator', g.id::text, g.custom_key, g.status::text, g.created_at, NULL
FROM x JOIN generators g ON g.project_id = $1::uuid AND g.custom_key = x.value AND g.status = 'active'
WHERE x.by IN ('key', 'string')
UNION ALL
SELECT x.n, 'tag', 'job', t.id::text, t.custom_key, t.status::text, t.created_at, t.part_day::text
FROM x JOIN triggers t ON t.project_id = $1::uuid AND t.tags @> ARRAY[x.value]
                      AND t.status IN ('registered', 'skipped', 'retrying', 'queued') AND cardinality(t.tags) > 0
WHERE x.by = 'tag'
UNION ALL
SELECT x.n, 'tag', 'generator', g.id::text, g.custom_key, g.status::text, g.created_at, NULL
FROM x JOIN generators g ON g.project_id = $1::uuid AND g.tags @> ARRAY[x.value] AND g.status = 'active'
WHERE x.by = 'tag'
