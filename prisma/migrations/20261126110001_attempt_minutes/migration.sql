-- Attempts counted per project and minute (docs/storage.md, per-minute
-- counts). GET /stats and the overview's lateness read every attempt of
-- their window before: about 40 ms per 45,000 attempts here, so a project
-- firing 1,000 a second (3.6 million an hour) would have them time out.
-- Each attempt that ends now adds itself to its minute's row, in the
-- statement that records it (finish_attempts.sql, reap_lost.sql, through
-- ttr_count_attempts below), and the reads cost the minutes asked for.
--
-- executions_project_completed_idx served those two reads only, and took an
-- entry for each version of every attempt: it is dropped.
--
-- Upgrading: the last two days of completed attempts are counted into the
-- new table in one pass over the executions (about the time of a sequential
-- read of them, with writes going on). Attempts recorded by executors of the
-- previous version while the upgrade runs are not counted.

-- CreateTable
CREATE TABLE "attempt_minutes" (
    "project_id" UUID NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "shard" SMALLINT NOT NULL,
    "success" INTEGER NOT NULL DEFAULT 0,
    "http_failure" INTEGER NOT NULL DEFAULT 0,
    "network_failure" INTEGER NOT NULL DEFAULT 0,
    "dead_letters" INTEGER NOT NULL DEFAULT 0,
    "started" INTEGER NOT NULL DEFAULT 0,
    "late_max_ms" DOUBLE PRECISION,
    "late_hist" INTEGER[],

    CONSTRAINT "attempt_minutes_pkey" PRIMARY KEY ("project_id","minute","shard")
);

-- A minute's rows are updated many times in a row: room on each page for
-- the next versions (HOT updates, no index entry), and vacuumed often.
ALTER TABLE "attempt_minutes" SET (fillfactor = 50, autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 1000);

-- DropIndex
DROP INDEX "executions_project_completed_idx";

-- CreateIndex
CREATE INDEX "attempt_minutes_minute_idx" ON "attempt_minutes"("minute");

-- AddForeignKey
ALTER TABLE "attempt_minutes" ADD CONSTRAINT "attempt_minutes_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The lateness histogram: bucket 0 holds lateness under 1 ms, bucket b >= 1
-- lateness in [2^((b-1)/8), 2^(b/8)) ms, eight buckets per doubling (each
-- about 9 % wide), bucket 255 everything from 2^(254/8) ms (about 27 days) on.
CREATE FUNCTION ttr_late_bucket(ms float8) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN ms < 1 THEN 0 ELSE least(255, 1 + floor(8 * ln(ms) / ln(2))::int) END
$$;

-- The upper bound of bucket b in ms: what a percentile falling in it is reported as.
CREATE FUNCTION ttr_late_bucket_top(b int) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN b IS NULL THEN NULL ELSE power(2::float8, b / 8.0) END
$$;

-- Two histograms added bucket by bucket (the shorter one padded with zeros).
CREATE FUNCTION ttr_hist_add(a int[], b int[]) RETURNS int[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  r int[];
BEGIN
  IF a IS NULL THEN RETURN b; END IF;
  IF b IS NULL THEN RETURN a; END IF;
  r := array_fill(0, ARRAY[greatest(cardinality(a), cardinality(b))]);
  FOR i IN 1 .. cardinality(r) LOOP
    r[i] := coalesce(a[i], 0) + coalesce(b[i], 0);
  END LOOP;
  RETURN r;
END
$$;

-- The sum of histograms (a minute's shards).
CREATE AGGREGATE ttr_hist_sum(int[]) (SFUNC = ttr_hist_add, STYPE = int[]);

-- The bucket holding the given rank (1-based, in order of lateness) of a
-- histogram: the first whose running count reaches it; null past the end.
CREATE FUNCTION ttr_hist_rank(h int[], rank numeric) RETURNS int
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  seen bigint := 0;
BEGIN
  IF h IS NULL THEN RETURN NULL; END IF;
  FOR i IN 1 .. cardinality(h) LOOP
    seen := seen + h[i];
    IF seen >= rank THEN RETURN i - 1; END IF;
  END LOOP;
  RETURN NULL;
END
$$;

-- The histogram of the given lateness values (ms; nulls skipped), as far as
-- the highest bucket used; null for none.
CREATE FUNCTION ttr_late_hist(lates float8[]) RETURNS int[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  r int[] := '{}';
  b int;
  v float8;
BEGIN
  FOREACH v IN ARRAY coalesce(lates, '{}') LOOP
    CONTINUE WHEN v IS NULL;
    b := ttr_late_bucket(v) + 1;
    IF cardinality(r) < b THEN
      r := r || array_fill(0, ARRAY[b - cardinality(r)]);
    END IF;
    r[b] := r[b] + 1;
  END LOOP;
  RETURN CASE WHEN cardinality(r) = 0 THEN NULL ELSE r END;
END
$$;

-- Counts ended attempts (parallel arrays, one entry per attempt) into
-- attempt_minutes: its outcome in the minute it completed (success for a
-- 2xx status, httpFailure for any other status, networkFailure for an
-- error without a status, deadLetters for the flagged ones), and, for a
-- first attempt, its lateness (start minus planned time) in the minute it
-- started. Rows are written in (project, minute) order, so that concurrent
-- callers never wait on each other in a cycle, under a shard picked by the
-- connection, so that they seldom wait at all. Its one statement keeps a
-- generic plan for the session (the executor's connections otherwise plan
-- each statement for its values, which would cost more than running this
-- one). Returns the rows written.
CREATE FUNCTION ttr_count_attempts(projects uuid[], completed timestamptz[], statuses int[], errored boolean[], dead boolean[],
                                   attempt_numbers int[], started timestamptz[], planned timestamptz[]) RETURNS int
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = 'force_generic_plan' AS $$
DECLARE
  written int;
BEGIN
  INSERT INTO attempt_minutes AS m (project_id, minute, shard, success, http_failure, network_failure, dead_letters, started, late_max_ms, late_hist)
  SELECT x.project_id, x.minute, (pg_backend_pid() % 4)::smallint, sum(x.success), sum(x.http_failure), sum(x.network_failure),
         sum(x.dead_letters), sum(x.started), max(x.late_ms), ttr_late_hist(array_agg(x.late_ms))
  FROM unnest(projects, completed, statuses, errored, dead, attempt_numbers, started, planned)
         AS a(project_id, completed_at, status, errored, dead, attempt_number, started_at, planned_at)
  CROSS JOIN LATERAL (VALUES
    -- the outcome, in the minute it completed
    (a.project_id, date_trunc('minute', a.completed_at), coalesce(a.status BETWEEN 200 AND 299, false)::int,
     coalesce(a.status NOT BETWEEN 200 AND 299, false)::int, (a.status IS NULL AND coalesce(a.errored, false))::int,
     coalesce(a.dead, false)::int, 0, NULL::float8),
    -- a first attempt's lateness, in the minute it started
    (a.project_id, CASE WHEN a.attempt_number = 1 THEN date_trunc('minute', a.started_at) END, 0, 0, 0, 0, 1,
     greatest(0, extract(epoch FROM a.started_at - a.planned_at) * 1000)::float8)
  ) AS x(project_id, minute, success, http_failure, network_failure, dead_letters, started, late_ms)
  WHERE a.completed_at IS NOT NULL AND x.minute IS NOT NULL
  GROUP BY x.project_id, x.minute
  ORDER BY x.project_id, x.minute
  ON CONFLICT (project_id, minute, shard) DO UPDATE
  SET success = m.success + excluded.success, http_failure = m.http_failure + excluded.http_failure,
      network_failure = m.network_failure + excluded.network_failure, dead_letters = m.dead_letters + excluded.dead_letters,
      started = m.started + excluded.started, late_max_ms = greatest(m.late_max_ms, excluded.late_max_ms),
      late_hist = ttr_hist_add(m.late_hist, excluded.late_hist);
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END
$$;

-- Counts the attempts that completed since `since` (an upgrade, a seeded
-- database): what the services would have counted as they ended.
CREATE FUNCTION ttr_count_completed_since(since timestamptz) RETURNS int
LANGUAGE sql VOLATILE AS $$
  SELECT ttr_count_attempts(array_agg(e.project_id), array_agg(e.completed_at), array_agg(e.response_status), array_agg(e.error_message IS NOT NULL),
                            array_agg(e.is_dead_letter), array_agg(e.attempt_number), array_agg(e.started_at), array_agg(e.planned_at))
  FROM executions e
  WHERE e.completed_at >= since
$$;

-- The last two days of completed attempts (GET /stats reads at most the
-- last 1,440 minutes).
SELECT ttr_count_completed_since(now() - interval '2 days');
