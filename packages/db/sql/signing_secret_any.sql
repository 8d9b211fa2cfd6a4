-- Whether any project has a signing secret: a process that signs then needs
-- TTR_SECRET_KEY and refuses to start without it.
-- Params: none. Returns one row when there is one, none otherwise.
SELECT 1 AS one FROM signing_secrets LIMIT 1
