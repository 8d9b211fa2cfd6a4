-- A project's triggers due soon, for the dashboard's overview
-- (docs/api/dashboard-api.md): registered one-shots and instances of
-- recurring triggers (each recurring trigger has its next run only as an
-- instance) counted per slot of $3 minutes, $4 slots from $2. Each slot's
-- count stops at $5: a count equal to $5 means at least that many.
-- Reads triggers_project_due_idx (project, scheduled_at, id), one short
-- range per slot.
-- Params: $1 project_id, $2 start of the first slot (timestamptz), $3
-- minutes per slot, $4 number of slots, $5 the most to count per slot.
-- Returns {from, due}, earliest first.
SELECT s.slot AS "from", c.due
FROM generate_series(0, $4::int - 1) AS i,
     LATERAL (SELECT $2::timestamptz + make_interval(mins => i * $3::int) AS slot) s,
     LATERAL (
       SELECT count(*)::int AS due FROM (
         SELECT 1 FROM triggers
         WHERE project_id = $1::uuid AND status = 'registered'
           AND scheduled_at >= s.slot AND scheduled_at < s.slot + make_interval(mins => $3::int)
         LIMIT $5
       ) d
     ) c
ORDER BY s.slot
