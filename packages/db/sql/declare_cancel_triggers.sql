-- Cancel one-shots and instances for /declare and /bulk (docs/concepts.md: registered,
-- skipped, retrying → cancelled; queued → cancelled only where allowed, a
-- /declare cancellation or a /bulk cancel by tag). Their planned executions
-- (a pending retry, a queued attempt) become cancelled and are never sent.
-- Running and finished triggers are never touched.
-- Each row is named by id and day, so only those days' partitions are read
-- (planned for its values: the statement goes through Prisma, unprepared).
-- Params: $1 project_id, $2 ids (uuid[]), $3 queued allowed, per id
-- (boolean[]), $4 each one's day (date[]).
-- Returns the ids cancelled.
WITH x AS (
  SELECT * FROM unnest($2::uuid[], $3::boolean[], $4::date[]) AS x(id, queued, part_day)
), t AS (
  UPDATE triggers tr SET status = 'cancelled', updated_at = clock_timestamp()
  FROM x
  WHERE tr.id = ANY ($2::uuid[]) AND tr.part_day = ANY ($4::date[]) AND tr.id = x.id AND tr.part_day = x.part_day
    AND tr.project_id = $1::uuid
    AND (tr.status IN ('registered', 'skipped', 'retrying') OR (x.queued AND tr.status = 'queued'))
  RETURNING tr.id, tr.part_day
), e AS (
  UPDATE executions ex SET status = 'cancelled'
  FROM t
  WHERE ex.part_day = ANY ($4::date[]) AND ex.trigger_id = t.id AND ex.part_day = t.part_day AND ex.status = 'planned'
)
SELECT id::text AS id FROM t
