-- Every signing secret as stored (sealed), current and previous while the
-- previous one still signs, for `ttr project signing-secret` to check which
-- keys sealed them before it seals a new one.
-- Params: none. Returns one row per sealed secret.
SELECT secret AS sealed FROM signing_secrets
UNION ALL
SELECT previous_secret FROM signing_secrets
WHERE previous_secret IS NOT NULL AND previous_until > clock_timestamp()
