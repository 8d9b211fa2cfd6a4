-- Attempts handed to the queue and not started: what waits there for an
-- executor (the ttr_queue_depth gauge). Counted here rather than from the
-- queue, whose jobs carry several attempts each. A started attempt stays a
-- planned, dispatched execution while its trigger runs it, with its start
-- on the trigger (start_attempts.sql), so those are counted apart and taken
-- off. Reads only the partial indexes of such attempts and of running
-- triggers (executions_in_queue_idx, triggers_lost_idx), whatever the size
-- of the history.
SELECT ((SELECT count(*) FROM executions WHERE status = 'planned' AND dispatched_at IS NOT NULL)
      - (SELECT count(*) FROM triggers WHERE status = 'running' AND attempt_reap_after IS NOT NULL))::int AS depth
