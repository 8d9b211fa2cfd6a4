-- Outcomes of a project's attempts per minute, for the dashboard's chart
-- (docs/api/dashboard-api.md). Every minute of the window gets a row, empty
-- ones too. An execution counts in the minute it completed: success for a
-- 2xx status, httpFailure for any other status, networkFailure for an
-- error message without a status (timeouts and Executor died included);
-- deadLetters counts the flagged ones among them.
-- Params: $1 project_id, $2 start of the first minute (timestamptz, whole
-- minute), $3 number of minutes.
-- Returns {minute, success, httpFailure, networkFailure, deadLetters},
-- oldest first.
WITH counts AS (
  SELECT date_trunc('minute', e.completed_at) AS minute,
         count(*) FILTER (WHERE e.response_status BETWEEN 200 AND 299) AS success,
         count(*) FILTER (WHERE e.response_status NOT BETWEEN 200 AND 299) AS http_failure,
         count(*) FILTER (WHERE e.response_status IS NULL AND e.error_message IS NOT NULL) AS network_failure,
         count(*) FILTER (WHERE e.is_dead_letter) AS dead_letters
  FROM executions e
  WHERE e.project_id = $1::uuid
    AND e.completed_at >= $2::timestamptz
    AND e.completed_at < $2::timestamptz + make_interval(mins => $3::int)
  GROUP BY 1
)
SELECT m.minute,
       COALESCE(c.success, 0)::int AS success,
       COALESCE(c.http_failure, 0)::int AS "httpFailure",
       COALESCE(c.network_failure, 0)::int AS "networkFailure",
       COALESCE(c.dead_letters, 0)::int AS "deadLetters"
FROM generate_series($2::timestamptz, $2::timestamptz + make_interval(mins => $3::int - 1), interval '1 minute') AS m(minute)
LEFT JOIN counts c ON c.minute = m.minute
ORDER BY m.minute
