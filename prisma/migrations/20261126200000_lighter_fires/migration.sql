-- Less written per fired trigger (docs/storage.md, what a fire writes).
--
-- 1. triggers_project_created_idx goes. A trigger is written about four
--    times on its way to completed, none of them a HOT update, so each of
--    its indexes takes four entries per fire. This one served only the
--    dashboard's list without a status filter, which now reads
--    triggers_project_status_created_idx once per status and merges the
--    ranges (session_list_triggers.sql): a page still costs the page size,
--    seven times over, and a fire four index entries fewer.
-- 2. triggers_project_status_created_idx is rebuilt ascending (it is read
--    backwards for the newest first, as before). Each new version of a
--    trigger goes to the end of its status's range; PostgreSQL splits a
--    leaf page written at its end so that the left half stays full, but a
--    descending index took those entries at the start of the range, split
--    its pages in half and kept them half empty.
-- 3. The day partitions of triggers and executions keep a fifth of each page
--    free instead of a tenth (fillfactor 80). A row's next version then
--    fits more often on its own page: PostgreSQL writes a smaller record
--    for it and no row lock for moving it away. New partitions get it from
--    ttr_ensure_partitions; existing ones from here, for the pages they
--    fill from now on.
--
-- Upgrading: rebuilding the status index reads every trigger once and
-- holds writes to the triggers meanwhile (docs/retention.md, upgrading, has
-- the time measured on 10 million rows); dropping the other index and
-- changing the fillfactor take no time that grows with the history.

DROP INDEX "triggers_project_created_idx";

DROP INDEX "triggers_project_status_created_idx";
CREATE INDEX "triggers_project_status_created_idx" ON "triggers"("project_id", "status", "created_at", "id");

DO $$
DECLARE
  part regclass;
BEGIN
  FOR part IN
    SELECT i.inhrelid::regclass FROM pg_inherits i
    WHERE i.inhparent IN ('"triggers"'::regclass, '"executions"'::regclass)
  LOOP
    EXECUTE format('ALTER TABLE %s SET (fillfactor = 80)', part);
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION "ttr_ensure_partitions"(first_day date, last_day date) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  d date;
  made integer := 0;
  suffix text;
  storage constant text := 'fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 2000, '
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
