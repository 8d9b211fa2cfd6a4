-- Reads that stay index-served whatever the size of the history
-- (docs/storage.md).
--
-- 1. Triggers by tag, newest first. A GIN index over every trigger's tags
--    cannot give rows in creation order: the dashboard's list filtered by a
--    tag either walked the project's whole history looking for the tag (a
--    tag with few or no rows) or sorted every row carrying it (a common
--    tag). `trigger_tags` holds one row per (trigger, tag) in a B-tree keyed
--    by (project, tag, created_at, trigger), so a page of any tag is a short
--    range read. It is partitioned by day exactly like `triggers` (each row
--    under its trigger's part_day), made and dropped with it, and kept in
--    step by triggers on `triggers` (below) and by retention's moves.
--    Status changes do not touch it.
-- 2. /declare and cancels by tag only look at pending triggers: their GIN
--    index now covers pending rows only, so a tag's history is never read.
--    The GIN index over all triggers goes (trigger_tags serves the rest).
-- 3. Dead letters are listed newest first by (created_at, id): their partial
--    index is keyed that way.
--
-- Upgrading a database with history: the tag rows of existing triggers are
-- written here (one pass over the triggers that have tags).

CREATE TABLE "trigger_tags" (
    "project_id" UUID NOT NULL,
    "tag" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "trigger_id" UUID NOT NULL,
    "part_day" DATE NOT NULL,

    CONSTRAINT "trigger_tags_pkey" PRIMARY KEY ("project_id", "tag", "created_at", "trigger_id", "part_day")
) PARTITION BY RANGE ("part_day");

-- One trigger_tags partition per existing triggers partition, same bounds
-- (triggers_pYYYYMMDD -> trigger_tags_pYYYYMMDD, triggers_legacy ->
-- trigger_tags_legacy).
DO $$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = '"triggers"'::regclass
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "trigger_tags" %s WITH (autovacuum_vacuum_insert_scale_factor = 0.05)',
                   'trigger_tags_' || substr(r.relname, length('triggers_') + 1), r.bound);
  END LOOP;
END $$;

INSERT INTO "trigger_tags" ("project_id", "tag", "created_at", "trigger_id", "part_day")
SELECT DISTINCT t."project_id", tag, t."created_at", t."id", t."part_day"
FROM "triggers" t, unnest(t."tags") AS tag
WHERE cardinality(t."tags") > 0;

-- Keeps trigger_tags in step with triggers.
-- - Inserts: one statement-level trigger per INSERT statement writes the tag
--   rows of all inserted triggers at once (a row-level one cost about 0.1 ms
--   a row, ten times more on a 10,000-item /declare). A tag repeated in one
--   trigger's list gets one row.
-- - Changes of tags (edits, /declare updates): a row-level trigger replaces
--   that trigger's rows. Status changes do not fire it (column list).
-- - Deletes: a row-level trigger removes the rows. A move to another day
--   partition (retention) reaches PostgreSQL's row triggers as a delete
--   from the old day and an insert into the new one, but fires no
--   statement-level insert trigger, so retention_move writes the moved
--   triggers' tag rows itself.
CREATE FUNCTION "ttr_trigger_tags_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "trigger_tags" ("project_id", "tag", "created_at", "trigger_id", "part_day")
  SELECT n."project_id", u.tag, n."created_at", n."id", n."part_day"
  FROM new_rows n, unnest(n."tags") WITH ORDINALITY AS u(tag, k)
  WHERE NOT (u.tag = ANY (n."tags"[1:u.k - 1]));
  RETURN NULL;
END $$;

CREATE FUNCTION "ttr_trigger_tags_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(OLD."tags") > 0 THEN
    DELETE FROM "trigger_tags"
    WHERE "project_id" = OLD."project_id" AND "tag" = ANY (OLD."tags") AND "created_at" = OLD."created_at"
      AND "trigger_id" = OLD."id" AND "part_day" = OLD."part_day";
  END IF;
  IF TG_OP = 'UPDATE' AND cardinality(NEW."tags") > 0 THEN
    INSERT INTO "trigger_tags" ("project_id", "tag", "created_at", "trigger_id", "part_day")
    SELECT DISTINCT NEW."project_id", tag, NEW."created_at", NEW."id", NEW."part_day" FROM unnest(NEW."tags") AS tag;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "trigger_tags_insert" AFTER INSERT ON "triggers"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "ttr_trigger_tags_inserted"();
CREATE TRIGGER "trigger_tags_update" AFTER UPDATE OF "tags" ON "triggers"
  FOR EACH ROW WHEN (OLD."tags" IS DISTINCT FROM NEW."tags") EXECUTE FUNCTION "ttr_trigger_tags_changed"();
CREATE TRIGGER "trigger_tags_delete" AFTER DELETE ON "triggers"
  FOR EACH ROW WHEN (cardinality(OLD."tags") > 0) EXECUTE FUNCTION "ttr_trigger_tags_changed"();

DROP INDEX "triggers_tags_idx";
CREATE INDEX "triggers_pending_tags_idx" ON "triggers" USING GIN ("tags") WHERE "status" IN ('registered', 'skipped', 'retrying', 'queued');

DROP INDEX "executions_dead_letter_idx";
CREATE INDEX "executions_dead_letter_idx" ON "executions"("project_id", "created_at" DESC, "id" DESC) WHERE "is_dead_letter";

-- Day partitions now come in threes.
CREATE OR REPLACE FUNCTION "ttr_ensure_partitions"(first_day date, last_day date) RETURNS integer LANGUAGE plpgsql AS $$
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
        EXECUTE format('CREATE TABLE %I (LIKE "trigger_tags") WITH (autovacuum_vacuum_insert_scale_factor = 0.05)', 'trigger_tags_p' || suffix);
        EXECUTE format('ALTER TABLE "triggers" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', 'triggers_p' || suffix, d, d + 1);
        EXECUTE format('ALTER TABLE "executions" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', 'executions_p' || suffix, d, d + 1);
        EXECUTE format('ALTER TABLE "trigger_tags" ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', 'trigger_tags_p' || suffix, d, d + 1);
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
