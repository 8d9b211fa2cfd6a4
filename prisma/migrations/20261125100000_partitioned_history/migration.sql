-- History in daily partitions (docs/retention.md).
--
-- `triggers` and `executions` become tables partitioned by `part_day`, one
-- partition per UTC day. A trigger's row is stored under the day it was
-- created; its executions are stored under the same day as the trigger, so a
-- trigger and its attempts always share one pair of partitions. Retention
-- removes old history by detaching and dropping whole partitions, which
-- costs no vacuum and no WAL per row; the few rows of an old partition that
-- must stay (a trigger due months after it was created, one that finished
-- recently) are first moved to a newer day. Rows only ever move to a later
-- day, so `part_day >= <day the id was created>` is always a safe filter.
--
-- Because a partition's unique indexes must contain `part_day`, the primary
-- keys become (id, part_day) and the foreign key from executions to
-- triggers goes away: retention keeps the two together instead.
--
-- Upgrading a database that already holds history: the existing tables are
-- kept whole as the first partition ("legacy", every row at the upgrade day)
-- and only the two primary keys and two unique indexes are rebuilt. The
-- legacy partition is dropped like any other day once all its rows are past
-- retention. docs/retention.md gives the measured time on 10M rows.

-- New ids are UUIDv7: time-ordered, so inserts land at the right edge of
-- each index instead of on random pages (less WAL, denser indexes).
-- (The application generates its own ids with the same layout.)
CREATE FUNCTION "ttr_uuidv7"() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
              PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
              FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;

-- Set the old tables aside under other names (indexes included, whose names
-- the new tables take over).
ALTER TABLE "executions" DROP CONSTRAINT "executions_trigger_id_fkey";
ALTER TABLE "triggers" RENAME TO "triggers_legacy";
ALTER TABLE "executions" RENAME TO "executions_legacy";
DO $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
    WHERE x.indrelid IN ('"triggers_legacy"'::regclass, '"executions_legacy"'::regclass)
  LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', r.relname, 'legacy_' || r.relname);
  END LOOP;
END $$;

CREATE TABLE "triggers" (
    "id" UUID NOT NULL DEFAULT ttr_uuidv7(),
    "project_id" UUID NOT NULL,
    "generator_id" UUID,
    "custom_key" TEXT,
    "status" "trigger_status" NOT NULL,
    "title" TEXT,
    "url" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "headers" JSONB NOT NULL,
    "body" BYTEA,
    "tags" TEXT[],
    "source" "request_source" NOT NULL DEFAULT 'schedule',
    "scheduled_at" TIMESTAMPTZ(3) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "part_day" DATE NOT NULL DEFAULT ((now() AT TIME ZONE 'UTC')::date),

    CONSTRAINT "triggers_pkey" PRIMARY KEY ("id", "part_day")
) PARTITION BY RANGE ("part_day");

-- An execution's part_day is its trigger's, always written explicitly.
CREATE TABLE "executions" (
    "id" UUID NOT NULL DEFAULT ttr_uuidv7(),
    "trigger_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "attempt_number" INTEGER NOT NULL,
    "triggered_by" "triggered_by" NOT NULL,
    "status" "execution_status" NOT NULL,
    "planned_at" TIMESTAMPTZ(3) NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "response_status" INTEGER,
    "response_headers" JSONB,
    "response_body" TEXT,
    "response_size" INTEGER,
    "error_message" TEXT,
    "is_dead_letter" BOOLEAN NOT NULL DEFAULT false,
    "timeout_seconds" INTEGER,
    "reap_after" TIMESTAMPTZ(3),
    "dispatched_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "held_by" TEXT,
    "part_day" DATE NOT NULL,

    CONSTRAINT "executions_pkey" PRIMARY KEY ("id", "part_day")
) PARTITION BY RANGE ("part_day");

ALTER TABLE "triggers" ADD CONSTRAINT "triggers_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "triggers" ADD CONSTRAINT "triggers_generator_id_fkey" FOREIGN KEY ("generator_id") REFERENCES "generators"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "executions" ADD CONSTRAINT "executions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The same indexes as before, now one per partition (each partition gets its
-- own copy). The unique ones include part_day, as PostgreSQL requires; a
-- trigger's executions share its part_day, so (trigger_id, attempt_number)
-- stays unique in effect.
CREATE INDEX "triggers_due_idx" ON "triggers"("scheduled_at", "id") WHERE "status" = 'registered';
CREATE INDEX "triggers_pending_key_idx" ON "triggers"("project_id", "custom_key") WHERE "status" IN ('registered', 'skipped', 'retrying') AND "custom_key" IS NOT NULL;
CREATE INDEX "triggers_project_created_idx" ON "triggers"("project_id", "created_at" DESC, "id" DESC);
CREATE INDEX "triggers_tags_idx" ON "triggers" USING GIN ("tags");
CREATE INDEX "triggers_generator_idx" ON "triggers"("generator_id", "status") WHERE "generator_id" IS NOT NULL;
CREATE INDEX "triggers_project_status_created_idx" ON "triggers"("project_id", "status", "created_at" DESC, "id" DESC);
CREATE INDEX "triggers_project_key_idx" ON "triggers"("project_id", "custom_key", "created_at" DESC) WHERE "custom_key" IS NOT NULL;
CREATE UNIQUE INDEX "triggers_one_pending_instance" ON "triggers"("generator_id", "part_day") WHERE "status" = 'registered' AND "generator_id" IS NOT NULL;

CREATE UNIQUE INDEX "executions_trigger_attempt_key" ON "executions"("trigger_id", "attempt_number", "part_day");
CREATE INDEX "executions_project_created_idx" ON "executions"("project_id", "created_at" DESC, "id" DESC);
CREATE INDEX "executions_dead_letter_idx" ON "executions"("project_id", "completed_at" DESC) WHERE "is_dead_letter";
CREATE INDEX "executions_project_completed_idx" ON "executions"("project_id", "completed_at");
CREATE INDEX "executions_dispatchable_idx" ON "executions"("planned_at", "id") WHERE "status" = 'planned' AND "dispatched_at" IS NULL AND "held_by" IS NULL;
CREATE INDEX "executions_held_idx" ON "executions"("project_id", "held_by", "planned_at", "id") WHERE "status" = 'planned' AND "dispatched_at" IS NULL AND "held_by" IS NOT NULL;
CREATE INDEX "executions_reap_idx" ON "executions"("reap_after") WHERE "status" = 'started';

-- Daily partitions of both tables for first_day … last_day that do not exist
-- yet, each a pair (triggers_pYYYYMMDD, executions_pYYYYMMDD). A plain table
-- is created and then attached, which takes only a SHARE UPDATE EXCLUSIVE
-- lock on the parent, so firing never waits for it. Days already covered
-- (by the legacy partition) are skipped. Returns the number of days added.
-- Storage settings: room on each page for a row's next version (fillfactor),
-- and autovacuum that follows one day's churn rather than the whole table.
CREATE FUNCTION "ttr_ensure_partitions"(first_day date, last_day date) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  d date;
  made integer := 0;
  suffix text;
  storage constant text := 'fillfactor = 90, autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 2000, '
    'autovacuum_vacuum_insert_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.02';
BEGIN
  d := first_day;
  WHILE d <= last_day LOOP
    suffix := to_char(d, 'YYYYMMDD');
    IF to_regclass(format('%I', 'triggers_p' || suffix)) IS NULL THEN
      BEGIN
        EXECUTE format('CREATE TABLE %I (LIKE "triggers" INCLUDING DEFAULTS) WITH (%s)', 'triggers_p' || suffix, storage);
        EXECUTE format('CREATE TABLE %I (LIKE "executions" INCLUDING DEFAULTS) WITH (%s)', 'executions_p' || suffix, storage);
        EXECUTE format('ALTER TABLE "triggers" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', 'triggers_p' || suffix, d, d + 1);
        EXECUTE format('ALTER TABLE "executions" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', 'executions_p' || suffix, d, d + 1);
        made := made + 1;
      EXCEPTION WHEN invalid_object_definition THEN
        -- "would overlap partition": the day belongs to the legacy partition
        NULL;
      END;
    END IF;
    d := d + 1;
  END LOOP;
  RETURN made;
END $$;

-- Bring the old rows in: as the legacy partition when there are any,
-- otherwise simply drop the empty tables.
DO $$
DECLARE
  today date := (now() AT TIME ZONE 'UTC')::date;
BEGIN
  IF EXISTS (SELECT 1 FROM "triggers_legacy") OR EXISTS (SELECT 1 FROM "executions_legacy") THEN
    EXECUTE format('ALTER TABLE "triggers_legacy" ADD COLUMN "part_day" DATE NOT NULL DEFAULT %L', today);
    EXECUTE format('ALTER TABLE "executions_legacy" ADD COLUMN "part_day" DATE NOT NULL DEFAULT %L', today);
    ALTER TABLE "triggers_legacy" ALTER COLUMN "part_day" DROP DEFAULT;
    ALTER TABLE "executions_legacy" ALTER COLUMN "part_day" DROP DEFAULT;
    ALTER TABLE "triggers_legacy" DROP CONSTRAINT "legacy_triggers_pkey";
    ALTER TABLE "executions_legacy" DROP CONSTRAINT "legacy_executions_pkey";
    DROP INDEX "legacy_triggers_one_pending_instance";
    DROP INDEX "legacy_executions_trigger_attempt_key";
    EXECUTE format('ALTER TABLE "triggers" ATTACH PARTITION "triggers_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', today + 1);
    EXECUTE format('ALTER TABLE "executions" ATTACH PARTITION "executions_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', today + 1);
    PERFORM ttr_ensure_partitions(today + 1, today + 7);
  ELSE
    DROP TABLE "executions_legacy";
    DROP TABLE "triggers_legacy";
    PERFORM ttr_ensure_partitions(today, today + 7);
  END IF;
END $$;
