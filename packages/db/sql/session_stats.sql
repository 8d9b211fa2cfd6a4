-- Outcomes of a project's attempts per minute, for the dashboard's chart
-- (docs/api/dashboard-api.md). Every minute of the window gets a row, empty
-- ones too. An execution counts in the minute it completed: success for a
-- 2xx status, httpFailure for any other status, networkFailure for an
-- error message without a status (timeouts and Executor died included);
-- deadLetters counts the flagged ones among them.
-- Read from attempt_minutes, where each attempt added itself when it ended
-- (ttr_count_attempts, docs/storage.md): the cost is that of the window's
-- minutes, whatever the number of attempts in them, and removing history
-- changes nothing here.
-- Params: $1 project_id, $2 start of the first minute (timestamptz, whole
-- minute), $3 number of minutes.
-- Returns {minute, success, httpFailure, networkFailure, deadLetters},
-- oldest first.
WITH counts AS (
  SELECT m.minute, sum(m.success) AS success, sum(m.http_failure) AS http_failure,
         sum(m.network_failure) AS network_failure, sum(m.dead_letters) AS dead_letters
  FROM attempt_minutes m
  WHERE m.project_id = $1::uuid
    AND m.minute >= $2::timestamptz
    AND m.minute < $2::timestamptz + make_interval(mins => $3::int)
  GROUP BY m.minute
)
SELECT m.minute,
       COALESCE(c.success, 0)::int AS success,
       COALESCE(c.http_failure, 0)::int AS "httpFailure",
       COALESCE(c.network_failure, 0)::int AS "networkFailure",
       COALESCE(c.dead_letters, 0)::int AS "deadLetters"
FROM generate_series($2::timestamptz, $2::timestamptz + make_interval(mins => $3::int - 1), interval '1 minute') AS m(minute)
LEFT JOIN counts c ON c.minute = m.minute
ORDER BY m.minute
