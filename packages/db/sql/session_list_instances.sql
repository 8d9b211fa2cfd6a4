-- One page of one recurring trigger's instances (GET /triggers?generatorId=,
-- the dashboard's recurring-trigger page), newest first by (created_at, id),
-- after a keyset cursor, in the shape of session_list_triggers.sql (whose
-- filters it takes too). One branch per status, each read in order from
-- triggers_generator_idx (generator_id, status, created_at, id) backwards
-- and switched off by its flag when a status filter names another; the
-- merge reads each branch lazily, so a page reads about $8 rows whatever the
-- number of instances or days of history. Tag and custom key only filter
-- the instances read. The api keeps one generic plan of this statement per
-- connection (its `lists` pool): every condition is an index condition in
-- any plan, and the cursor compares with coalesced bounds.
-- Params: $1 project_id, $2 generator id, $3 status filter (trigger_status or
-- null), $4 tag or null, $5 custom key or null, $6 cursor created_at (null on
-- the first page), $7 cursor id, $8 number of rows.
-- Returns {kind, id, createdAt, partDay} of the page, in order; callers load
-- the rows with session_load_triggers, naming the days.
SELECT 'job' AS kind, id::text AS id, created_at AS "createdAt", part_day::text AS "partDay"
FROM (
  (SELECT t.id, t.created_at, t.part_day FROM triggers t
    WHERE coalesce($3::trigger_status = 'registered', true)
      AND t.generator_id = $2::uuid AND t.status = 'registered' AND t.project_id = $1::uuid
      AND ($4::text IS NULL OR t.tags @> ARRAY[$4::text]) AND ($5::text IS NULL OR t.custom_key = $5::text)
      AND (t.created_at, t.id) < (coalesce($6::timestamptz, 'infinity'), coalesce($7::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $8::int)
  UNION ALL
  (SELECT t.id, t.created_at, t.part_day FROM triggers t
    WHERE coalesce($3::trigger_status = 'skipped', true)
      AND t.generator_id = $2::uuid AND t.status = 'skipped' AND t.project_id = $1::uuid
      AND ($4::text IS NULL OR t.tags @> ARRAY[$4::text]) AND ($5::text IS NULL OR t.custom_key = $5::text)
      AND (t.created_at, t.id) < (coalesce($6::timestamptz, 'infinity'), coalesce($7::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $8::int)
  UNION ALL
  (SELECT t.id, t.created_at, t.part_day FROM triggers t
    WHERE coalesce($3::trigger_status = 'queued', true)
      AND t.generator_id = $2::uuid AND t.status = 'queued' AND t.project_id = $1::uuid
      AND ($4::text IS NULL OR t.tags @> ARRAY[$4::text]) AND ($5::text IS NULL OR t.custom_key = $5::text)
      AND (t.created_at, t.id) < (coalesce($6::timestamptz, 'infinity'), coalesce($7::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $8::int)
  UNION ALL
  (SELECT t.id, t.created_at, t.part_day FROM triggers t
    WHERE coalesce($3::trigger_status = 'running', true)
      AND t.generator_id = $2::uuid AND t.status = 'running' AND t.project_id = $1::uuid
      AND ($4::text IS NULL OR t.tags @> ARRAY[$4::text]) AND ($5::text IS NULL OR t.custom_key = $5::text)
      AND (t.created_at, t.id) < (coalesce($6::timestamptz, 'infinity'), coalesce($7::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $8::int)
  UNION ALL
  (SELECT t.id, t.created_at, t.part_day FROM triggers t
    WHERE coalesce($3::trigger_status = 'retrying', true)
      AND t.generator_id = $2::uuid AND t.status = 'retrying' AND t.project_id = $1::uuid
      AND ($4::text IS NULL OR t.tags @> ARRAY[$4::text]) AND ($5::text IS NULL OR t.custom_key = $5::text)
      AND (t.created_at, t.id) < (coalesce($6::timestamptz, 'infinity'), coalesce($7::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $8::int)
  UNION ALL
  (SELECT t.id, t.created_at, t.part_day FROM triggers t
    WHERE coalesce($3::trigger_status = 'completed', true)
      AND t.generator_id = $2::uuid AND t.status = 'completed' AND t.project_id = $1::uuid
      AND ($4::text IS NULL OR t.tags @> ARRAY[$4::text]) AND ($5::text IS NULL OR t.custom_key = $5::text)
      AND (t.created_at, t.id) < (coalesce($6::timestamptz, 'infinity'), coalesce($7::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $8::int)
  UNION ALL
  (SELECT t.id, t.created_at, t.part_day FROM triggers t
    WHERE coalesce($3::trigger_status = 'cancelled', true)
      AND t.generator_id = $2::uuid AND t.status = 'cancelled' AND t.project_id = $1::uuid
      AND ($4::text IS NULL OR t.tags @> ARRAY[$4::text]) AND ($5::text IS NULL OR t.custom_key = $5::text)
      AND (t.created_at, t.id) < (coalesce($6::timestamptz, 'infinity'), coalesce($7::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $8::int)
  ORDER BY created_at DESC, id DESC
  LIMIT $8::int
) page
ORDER BY page.created_at DESC, page.id DESC
