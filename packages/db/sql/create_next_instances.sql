-- Create the pending instance of recurring triggers, snapshotting each
-- generator's request (SPEC §2 Recurring trigger). The partial unique index
-- triggers_one_pending_instance turns a second pending instance into a no-op.
-- Params: $1 generator ids (uuid[]), $2 their next run times (timestamptz[]).
-- Returns the created instances.
INSERT INTO triggers (id, project_id, generator_id, custom_key, status, title, url, method,
                      headers, body, tags, source, scheduled_at, created_at, updated_at)
SELECT gen_random_uuid(), g.project_id, g.id, NULL, 'registered', NULL, g.url, g.method,
       g.headers, g.body, g.tags, g.source, x.at, clock_timestamp(), clock_timestamp()
FROM unnest($1::uuid[], $2::timestamptz[]) AS x(generator_id, at)
JOIN generators g ON g.id = x.generator_id AND g.status = 'active'
ON CONFLICT (generator_id) WHERE status = 'registered' AND generator_id IS NOT NULL DO NOTHING
RETURNING id::text, generator_id::text AS "generatorId", scheduled_at AS "scheduledAt"
