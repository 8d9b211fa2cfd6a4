-- Due planned attempts not yet admitted to the queue: those a policy holds
-- back, and those waiting for the next tick. Counted as two halves so that
-- each reads only its partial index (executions_held_idx,
-- executions_dispatchable_idx), whatever the size of the history.
-- Params: $1 now.
SELECT ((SELECT count(*) FROM executions
          WHERE status = 'planned' AND dispatched_at IS NULL AND held_by IS NOT NULL AND planned_at <= $1)
      + (SELECT count(*) FROM executions
          WHERE status = 'planned' AND dispatched_at IS NULL AND held_by IS NULL AND planned_at <= $1))::int AS held
