-- How late a project's first attempts started, per minute, for the
-- dashboard's overview (docs/api/dashboard-api.md): for the first attempts
-- that started in each minute of the window and have ended, how many, and the 50th and
-- 99th percentiles and the maximum of started_at − planned_at in
-- milliseconds (a first attempt is planned at its trigger's scheduled
-- time, so this is how long after its second it went out). Retries and
-- replays are left out: their planned time is a delay's end, not a
-- schedule. Percentiles are nearest-rank (percentile_disc): each is the
-- lateness of one of the attempts. Every minute of the window gets a row;
-- the figures of a minute with no start are null.
-- Reads executions_project_completed_idx (project, completed_at) over the
-- window only, like session_stats.sql, whatever the size of the history: an
-- attempt ends within its timeout of its start, so one that started in the
-- window ended after the window began (an attempt still in flight counts
-- once it ends).
-- Params: $1 project_id, $2 start of the first minute (timestamptz, whole
-- minute), $3 number of minutes.
-- Returns {minute, started, p50Ms, p99Ms, maxMs}, oldest first.
WITH firsts AS (
  SELECT date_trunc('minute', e.started_at) AS minute,
         (extract(epoch FROM e.started_at - e.planned_at) * 1000)::float8 AS late_ms
  FROM executions e
  WHERE e.project_id = $1::uuid
    AND e.completed_at >= $2::timestamptz
    AND e.attempt_number = 1 AND e.started_at IS NOT NULL
    AND e.started_at >= $2::timestamptz
    AND e.started_at < $2::timestamptz + make_interval(mins => $3::int)
), per_minute AS (
  SELECT minute, count(*) AS started,
         percentile_disc(0.5) WITHIN GROUP (ORDER BY late_ms) AS p50,
         percentile_disc(0.99) WITHIN GROUP (ORDER BY late_ms) AS p99,
         max(late_ms) AS max
  FROM firsts
  GROUP BY minute
)
SELECT m.minute,
       COALESCE(p.started, 0)::int AS started,
       p.p50 AS "p50Ms",
       p.p99 AS "p99Ms",
       p.max AS "maxMs"
FROM generate_series($2::timestamptz, $2::timestamptz + make_interval(mins => $3::int - 1), interval '1 minute') AS m(minute)
LEFT JOIN per_minute p ON p.minute = m.minute
ORDER BY m.minute
