-- Announce the cutoff a retention pass applies: from here on, rows that
-- reached a final status before it are not brought back (see the gate in
-- session_replay.sql and the custom-key lookups). The cutoff only advances.
-- Params: $1 cutoff (timestamptz). Returns the cutoff in force.
INSERT INTO retention_state (id, cutoff, updated_at) VALUES (1, $1, clock_timestamp())
ON CONFLICT (id) DO UPDATE SET cutoff = greatest(retention_state.cutoff, EXCLUDED.cutoff), updated_at = clock_timestamp()
RETURNING cutoff
