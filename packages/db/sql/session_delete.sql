-- Sign out: forget a session.
-- Params: $1 token_hash. Returns the number of rows deleted (0 or 1).
DELETE FROM sessions WHERE token_hash = $1
