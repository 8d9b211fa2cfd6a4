-- Attempts handed to the queue and not started: what waits there for an
-- executor (the ttr_queue_depth gauge). Counted here rather than from the
-- queue, whose jobs carry several attempts each. Reads only the partial
-- index of such attempts (executions_in_queue_idx), whatever the size of
-- the history.
SELECT count(*)::int AS depth FROM executions WHERE status = 'planned' AND dispatched_at IS NOT NULL
