-- Fewer index entries per fired trigger (docs/storage.md, what a fire writes).
-- Every row version that is not a HOT update gets an entry in each index
-- whose predicate it satisfies. triggers_pending_tags_idx (GIN) held every
-- pending trigger, untagged ones too under the empty array, although only
-- lookups by a tag read it: an untagged trigger paid two GIN insertions per
-- fire (registered, then queued) for nothing. It now holds tagged triggers
-- only; the statements that read it say `cardinality(tags) > 0`, which a
-- tag lookup implies.
--
-- Upgrading a database with history rebuilds the index in one pass over
-- the pending triggers' table, holding writes to it meanwhile (see
-- docs/retention.md, upgrading, for the time measured on 10 million rows).

DROP INDEX "triggers_pending_tags_idx";
CREATE INDEX "triggers_pending_tags_idx" ON "triggers" USING GIN ("tags") WHERE "status" IN ('registered', 'skipped', 'retrying', 'queued') AND cardinality("tags") > 0;
