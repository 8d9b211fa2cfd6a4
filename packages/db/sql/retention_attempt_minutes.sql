-- Per-minute counts older than the longest window read from them (GET
-- /stats reads at most 1,440 minutes; two days are kept), removed by every
-- retention pass whatever TTR_RETENTION_DAYS says (docs/retention.md).
-- Params: $1 now. Returns the number of rows removed.
WITH gone AS (
  DELETE FROM attempt_minutes WHERE minute < $1::timestamptz - interval '2 days'
  RETURNING 1
)
SELECT count(*)::int AS removed FROM gone
