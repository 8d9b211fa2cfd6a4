-- Create the policy of a tag, or replace the one the tag has
-- (docs/api/tag-policies.md, POST): a replaced policy keeps id and created_at, takes
-- every other field from the parameters (defaults already filled in) and
-- gets a later updated_at. ON CONFLICT makes racing creates of one tag end
-- in one row, whichever wins.
-- updated_at: at least a millisecond past the previous value (the column
-- keeps milliseconds), so a change is visible even within one millisecond.
-- Params: $1 project_id, $2 tag, $3 throughput (JSON text or null),
--   $4 max_concurrent, $5 request_timeout_seconds, $6 retry_strategy,
--   $7 retry_initial_delay_seconds, $8 retry_max_delay_seconds,
--   $9 retry_max_attempts, $10 retry_jitter, $11 retry_on, $12 signing,
--   $13 honor_retry_after, $14 notify_url, $15 paused.
-- Returns the stored policy.
INSERT INTO tag_policies AS p (
  id, project_id, tag, throughput, max_concurrent, request_timeout_seconds,
  retry_strategy, retry_initial_delay_seconds, retry_max_delay_seconds, retry_max_attempts,
  retry_jitter, retry_on, signing, honor_retry_after, notify_url, paused, created_at, updated_at)
VALUES (
  gen_random_uuid(), $1::uuid, $2, $3::jsonb, $4::int, $5::int,
  $6::retry_strategy, $7::int, $8::int, $9::int,
  $10::boolean, $11::retry_on, $12::boolean, $13::boolean, $14::text, $15::boolean, clock_timestamp(), clock_timestamp())
ON CONFLICT (project_id, tag) DO UPDATE SET
  throughput = EXCLUDED.throughput,
  max_concurrent = EXCLUDED.max_concurrent,
  request_timeout_seconds = EXCLUDED.request_timeout_seconds,
  retry_strategy = EXCLUDED.retry_strategy,
  retry_initial_delay_seconds = EXCLUDED.retry_initial_delay_seconds,
  retry_max_delay_seconds = EXCLUDED.retry_max_delay_seconds,
  retry_max_attempts = EXCLUDED.retry_max_attempts,
  retry_jitter = EXCLUDED.retry_jitter,
  retry_on = EXCLUDED.retry_on,
  signing = EXCLUDED.signing,
  honor_retry_after = EXCLUDED.honor_retry_after,
  notify_url = EXCLUDED.notify_url,
  paused = EXCLUDED.paused,
  updated_at = GREATEST(clock_timestamp(), p.updated_at + interval '1 millisecond')
RETURNING id::text AS id, project_id::text AS "projectId", tag, throughput,
          max_concurrent AS "maxConcurrent", request_timeout_seconds AS "requestTimeoutSeconds",
          retry_strategy::text AS "retryStrategy", retry_initial_delay_seconds AS "retryInitialDelaySeconds",
          retry_max_delay_seconds AS "retryMaxDelaySeconds", retry_max_attempts AS "retryMaxAttempts",
          retry_jitter AS "retryJitter", retry_on::text AS "retryOn", signing, honor_retry_after AS "honorRetryAfter",
       notify_url AS "notifyUrl", paused, created_at AS "createdAt", updated_at AS "updatedAt"
