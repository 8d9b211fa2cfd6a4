-- How late a project's first attempts started, per minute, for the
-- dashboard's overview (docs/api/dashboard-api.md): for the first attempts
-- that started in each minute of the window and have ended, how many, the
-- 50th and 99th percentiles and the maximum of started_at − planned_at in
-- milliseconds (a first attempt is planned at its trigger's scheduled time,
-- so this is how long after its second it went out). Retries and replays
-- are left out: their planned time is a delay's end, not a schedule.
-- Read from attempt_minutes, where each first attempt added its lateness to
-- a histogram of its start minute when it ended (ttr_count_attempts,
-- docs/storage.md), so the cost is that of the window's minutes (a day's,
-- 1,440 minutes with four shards each, about 80 ms here). The count and
-- the maximum are exact; a percentile is the nearest-rank one's bucket,
-- reported as the bucket's upper bound (at most 9 % above the exact value,
-- never below it) or the maximum if that is lower. Every minute of the
-- window gets a row; the figures of a minute with no start are null.
-- Params: $1 project_id, $2 start of the first minute (timestamptz, whole
-- minute), $3 number of minutes.
-- Returns {minute, started, p50Ms, p99Ms, maxMs}, oldest first.
WITH per_minute AS (
  SELECT m.minute, sum(m.started) AS started, max(m.late_max_ms) AS max_ms, ttr_hist_sum(m.late_hist) AS hist
  FROM attempt_minutes m
  WHERE m.project_id = $1::uuid
    AND m.minute >= $2::timestamptz
    AND m.minute < $2::timestamptz + make_interval(mins => $3::int)
    AND m.started > 0
  GROUP BY m.minute
)
SELECT g.minute,
       COALESCE(p.started, 0)::int AS started,
       least(ttr_late_bucket_top(ttr_hist_rank(p.hist, ceil(0.5 * p.started))), p.max_ms) AS "p50Ms",
       least(ttr_late_bucket_top(ttr_hist_rank(p.hist, ceil(0.99 * p.started))), p.max_ms) AS "p99Ms",
       p.max_ms AS "maxMs"
FROM generate_series($2::timestamptz, $2::timestamptz + make_interval(mins => $3::int - 1), interval '1 minute') AS g(minute)
LEFT JOIN per_minute p ON p.minute = g.minute
ORDER BY g.minute
