-- Create the pending instance of recurring triggers, snapshotting each
-- generator's request at that moment. Callers lock the
-- generators first (lock_active_generators, or the /declare transaction), so
-- this statement sees every instance committed before it: a generator that
-- already has a pending instance gets no second one. The partial unique
-- index triggers_one_pending_instance backs that up within a day's partition.
-- Params: $1 generator ids (uuid[]), $2 their next run times (timestamptz[]).
-- Returns the created instances.
INSERT INTO triggers (id, project_id, generator_id, custom_key, status, title, url, method,
                      headers, body, tags, source, scheduled_at, created_at, updated_at)
SELECT ttr_uuidv7(), g.project_id, g.id, NULL, 'registered', NULL, g.url, g.method,
       g.headers, g.body, g.tags, g.source, x.at, clock_timestamp(), clock_timestamp()
FROM unnest($1::uuid[], $2::timestamptz[]) AS x(generator_id, at)
JOIN generators g ON g.id = x.generator_id AND g.status = 'active'
WHERE NOT EXISTS (SELECT 1 FROM triggers p WHERE p.generator_id = g.id AND p.status = 'registered')
ON CONFLICT (generator_id, part_day) WHERE status = 'registered' AND generator_id IS NOT NULL DO NOTHING
RETURNING id::text, generator_id::text AS "generatorId", scheduled_at AS "scheduledAt"
