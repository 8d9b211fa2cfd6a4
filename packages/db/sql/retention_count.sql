-- Rows of one day partition, counted exactly (used for partitions small
-- enough that an index-only count is cheap; larger ones use PostgreSQL's
-- estimate).
-- Params: $1 partition's first day, $2 its end (exclusive).
SELECT (SELECT count(*) FROM triggers WHERE part_day >= $1::date AND part_day < $2::date)::float8 AS triggers,
       (SELECT count(*) FROM executions WHERE part_day >= $1::date AND part_day < $2::date)::float8 AS executions
