-- Write a policy's fields as a PUT left them (docs/api/tag-policies.md,
-- PUT): every field is set, unchanged ones to their current value, and
-- updated_at moves forward even when nothing else changed (`{}`). A rename
-- onto a tag that already has a policy fails on the unique index
-- (project_id, tag) with 23505, also when that policy is created meanwhile.
-- updated_at: at least a millisecond past the previous value, as in
-- policy_upsert.sql.
-- Params: $1 project_id, $2 id, $3 tag, $4 throughput (JSON text or null),
--   $5 max_concurrent, $6 request_timeout_seconds, $7 retry_strategy,
--   $8 retry_initial_delay_seconds, $9 retry_max_delay_seconds,
--   $10 retry_max_attempts, $11 retry_jitter, $12 retry_on, $13 signing,
--   $14 honor_retry_after, $15 notify_url, $16 paused.
-- Returns the updated policy, or no row when it no longer exists.
UPDATE tag_policies AS p SET
  tag = $3,
  throughput = $4::jsonb,
  max_concurrent = $5::int,
  request_timeout_seconds = $6::int,
  retry_strategy = $7::retry_strategy,
  retry_initial_delay_seconds = $8::int,
  retry_max_delay_seconds = $9::int,
  retry_max_attempts = $10::int,
  retry_jitter = $11::boolean,
  retry_on = $12::retry_on,
  signing = $13::boolean,
  honor_retry_after = $14::boolean,
  notify_url = $15::text,
  paused = $16::boolean,
  updated_at = GREATEST(clock_timestamp(), p.updated_at + interval '1 millisecond')
WHERE p.project_id = $1::uuid AND p.id = $2::uuid
RETURNING id::text AS id, project_id::text AS "projectId", tag, throughput,
          max_concurrent AS "maxConcurrent", request_timeout_seconds AS "requestTimeoutSeconds",
          retry_strategy::text AS "retryStrategy", retry_initial_delay_seconds AS "retryInitialDelaySeconds",
          retry_max_delay_seconds AS "retryMaxDelaySeconds", retry_max_attempts AS "retryMaxAttempts",
          retry_jitter AS "retryJitter", retry_on::text AS "retryOn", signing, honor_retry_after AS "honorRetryAfter",
       notify_url AS "notifyUrl", paused, created_at AS "createdAt", updated_at AS "updatedAt"
