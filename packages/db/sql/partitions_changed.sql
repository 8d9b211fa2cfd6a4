-- Announces that day partitions were added or detached. PostgreSQL then
-- plans every kept statement over the day-partitioned tables again, in
-- each session, on its next call; every scheduler replica listens on this
-- channel and does that for its loop at once, between two ticks, instead
-- of in the next tick's firing (docs/storage.md, "Kept plans and
-- connections").
-- Inside a transaction, the notice goes out when it commits.
-- Params: none. Returns one row (pg_notify's empty result).
SELECT pg_notify('ttr_partitions', '')
