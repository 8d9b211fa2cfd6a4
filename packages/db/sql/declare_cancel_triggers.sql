-- Cancel one-shots and instances for /declare and /bulk (SPEC §3: registered,
-- skipped, retrying → cancelled; queued → cancelled only where allowed, a
-- /declare cancellation or a /bulk cancel by tag). Their planned executions
-- (a pending retry, a queued attempt) become cancelled and are never sent.
-- Running and finished triggers are never touched.
-- Params: $1 project_id, $2 ids (uuid[]), $3 queued allowed, per id (boolean[]).
-- Returns the ids cancelled.
WITH x AS (
  SELECT * FROM unnest($2::uuid[], $3::boolean[]) AS x(id, queued)
), t AS (
  UPDATE triggers tr SET status = 'cancelled', updated_at = clock_timestamp()
  FROM x
  WHERE tr.id = x.id AND tr.project_id = $1::uuid
    AND (tr.status IN ('registered', 'skipped', 'retrying') OR (x.queued AND tr.status = 'queued'))
  RETURNING tr.id
), e AS (
  UPDATE executions SET status = 'cancelled'
  WHERE trigger_id IN (SELECT id FROM t) AND status = 'planned'
)
SELECT id::text AS id FROM t
