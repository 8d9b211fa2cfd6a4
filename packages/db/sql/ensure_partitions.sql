-- Create the day partitions of triggers and executions from $1 to $2 that
-- do not exist yet (ttr_ensure_partitions, in the migrations).
-- Params: $1 first day (date), $2 last day (date). Returns the days added.
SELECT ttr_ensure_partitions($1::date, $2::date) AS made
