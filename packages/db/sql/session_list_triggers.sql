-- One page of a project's dashboard list: one-shots and instances (kind
-- job) together with recurring triggers (kind generator), newest first by
-- (created_at, id), after a keyset cursor (docs/api/dashboard-api.md).
-- Each branch reads at most $10 rows in index order and the merge keeps the
-- first $10, so the cost follows the page size, not the project's size.
-- Without a tag or a custom key, jobs come from
-- triggers_project_status_created_idx, one branch per status (the merge
-- reads each lazily, so a page reads about $10 rows in all); with a status
-- filter only that status's branch runs. An index on (project, created_at)
-- alone would serve the unfiltered list in one range, but it would take an
-- entry for every version of every trigger (docs/storage.md, what a fire
-- writes): the list pays a few pages per status and day partition instead.
-- A branch whose kind or status is filtered out is switched off with its
-- flag and costs nothing. The api keeps one generic plan of this statement
-- per connection (its `lists` pool), so the cursor compares with coalesced
-- bounds, an index condition in any plan, rather than `$8 IS NULL OR …`.
-- One recurring trigger's instances have a statement of their own
-- (session_list_instances.sql). With a tag, jobs are read from trigger_tags (one
-- B-tree range per project and tag, newest first), so a page costs the
-- same for a rare tag as for a common one; only other filters beside the
-- tag need each row's trigger.
-- Params: $1 project_id, $2 include jobs (bool), $3 job status filter
-- (trigger_status or null), $4 include generators (bool), $5 generator
-- status filter (generator_status or null), $6 tag or null, $7 custom key
-- or null, $8 cursor created_at (null on the first page), $9 cursor id,
-- $10 number of rows.
-- Returns {kind, id, createdAt, partDay (jobs only)} of the page, in order;
-- callers load the rows with session_load_triggers, naming the days.
SELECT kind, id::text AS id, created_at AS "createdAt", part_day::text AS "partDay"
FROM (
  (SELECT 'job' AS kind, t.id, t.created_at, t.part_day FROM triggers t
    WHERE $2::boolean AND $6::text IS NULL AND $7::text IS NULL AND coalesce($3::trigger_status = 'registered', true)
      AND t.project_id = $1::uuid AND t.status = 'registered'
      AND (t.created_at, t.id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $10::int)
  UNION ALL
  (SELECT 'job' AS kind, t.id, t.created_at, t.part_day FROM triggers t
    WHERE $2::boolean AND $6::text IS NULL AND $7::text IS NULL AND coalesce($3::trigger_status = 'skipped', true)
      AND t.project_id = $1::uuid AND t.status = 'skipped'
      AND (t.created_at, t.id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $10::int)
  UNION ALL
  (SELECT 'job' AS kind, t.id, t.created_at, t.part_day FROM triggers t
    WHERE $2::boolean AND $6::text IS NULL AND $7::text IS NULL AND coalesce($3::trigger_status = 'queued', true)
      AND t.project_id = $1::uuid AND t.status = 'queued'
      AND (t.created_at, t.id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $10::int)
  UNION ALL
  (SELECT 'job' AS kind, t.id, t.created_at, t.part_day FROM triggers t
    WHERE $2::boolean AND $6::text IS NULL AND $7::text IS NULL AND coalesce($3::trigger_status = 'running', true)
      AND t.project_id = $1::uuid AND t.status = 'running'
      AND (t.created_at, t.id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $10::int)
  UNION ALL
  (SELECT 'job' AS kind, t.id, t.created_at, t.part_day FROM triggers t
    WHERE $2::boolean AND $6::text IS NULL AND $7::text IS NULL AND coalesce($3::trigger_status = 'retrying', true)
      AND t.project_id = $1::uuid AND t.status = 'retrying'
      AND (t.created_at, t.id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $10::int)
  UNION ALL
  (SELECT 'job' AS kind, t.id, t.created_at, t.part_day FROM triggers t
    WHERE $2::boolean AND $6::text IS NULL AND $7::text IS NULL AND coalesce($3::trigger_status = 'completed', true)
      AND t.project_id = $1::uuid AND t.status = 'completed'
      AND (t.created_at, t.id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $10::int)
  UNION ALL
  (SELECT 'job' AS kind, t.id, t.created_at, t.part_day FROM triggers t
    WHERE $2::boolean AND $6::text IS NULL AND $7::text IS NULL AND coalesce($3::trigger_status = 'cancelled', true)
      AND t.project_id = $1::uuid AND t.status = 'cancelled'
      AND (t.created_at, t.id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $10::int)
  UNION ALL
  (SELECT 'job' AS kind, t.id, t.created_at, t.part_day FROM triggers t
    WHERE $2::boolean AND $6::text IS NULL AND $7::text IS NOT NULL
      AND t.project_id = $1::uuid AND t.custom_key = $7::text
      AND ($3::trigger_status IS NULL OR t.status = $3::trigger_status)
      AND (t.created_at, t.id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY t.created_at DESC, t.id DESC LIMIT $10::int)
  UNION ALL
  (SELECT 'job' AS kind, x.trigger_id, x.created_at, x.part_day
     FROM trigger_tags x
    WHERE $2::boolean AND $6::text IS NOT NULL AND $3::trigger_status IS NULL AND $7::text IS NULL
      AND x.project_id = $1::uuid AND x.tag = $6::text
      AND (x.created_at, x.trigger_id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY x.created_at DESC, x.trigger_id DESC
    LIMIT $10::int)
  UNION ALL
  (SELECT 'job' AS kind, t.id, t.created_at, t.part_day
     FROM trigger_tags x
     -- each tag row's trigger through its primary key, also in a generic
     -- plan (which would otherwise join whole partitions): LIMIT 1 (one row
     -- at most, by the key) keeps the subquery from being merged into a join
     CROSS JOIN LATERAL (SELECT * FROM triggers t1 WHERE t1.id = x.trigger_id AND t1.part_day = x.part_day LIMIT 1) t
    WHERE $2::boolean AND $6::text IS NOT NULL
      AND ($3::trigger_status IS NOT NULL OR $7::text IS NOT NULL)
      AND x.project_id = $1::uuid AND x.tag = $6::text
      AND (x.created_at, x.trigger_id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
      AND ($3::trigger_status IS NULL OR t.status = $3::trigger_status)
      AND ($7::text IS NULL OR t.custom_key = $7::text)
    ORDER BY x.created_at DESC, x.trigger_id DESC
    LIMIT $10::int)
  UNION ALL
  (SELECT 'generator' AS kind, g.id, g.created_at, NULL::date
     FROM generators g
    WHERE $4::boolean
      AND g.project_id = $1::uuid
      AND ($5::generator_status IS NULL OR g.status = $5::generator_status)
      AND ($6::text IS NULL OR g.tags @> ARRAY[$6::text])
      AND ($7::text IS NULL OR g.custom_key = $7::text)
      AND (g.created_at, g.id) < (coalesce($8::timestamptz, 'infinity'), coalesce($9::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
    ORDER BY g.created_at DESC, g.id DESC
    LIMIT $10::int)
  ORDER BY created_at DESC, id DESC
  LIMIT $10::int
) page
ORDER BY page.created_at DESC, page.id DESC
