-- Replace a user's password hash made with older scrypt settings by one made
-- with today's, after a successful sign-in. Only if the stored hash is still
-- the one that was checked: a password changed meanwhile is left alone.
-- Params: $1 user id (uuid), $2 the hash that was checked, $3 the new hash.
-- Returns how many rows changed (0 or 1).
UPDATE users SET password_hash = $3
WHERE id = $1::uuid AND password_hash = $2
