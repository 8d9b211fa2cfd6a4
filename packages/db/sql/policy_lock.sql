-- A project's policy by id, locked until the transaction ends, so a PUT
-- validates against the row it then writes (docs/api/tag-policies.md)
-- and concurrent PUTs of one policy apply one after the other.
-- Params: $1 project_id, $2 id. Returns the policy, or no row when the
-- project has no policy with this id.
SELECT id::text AS id, project_id::text AS "projectId", tag, throughput,
       max_concurrent AS "maxConcurrent", request_timeout_seconds AS "requestTimeoutSeconds",
       retry_strategy::text AS "retryStrategy", retry_initial_delay_seconds AS "retryInitialDelaySeconds",
       retry_max_delay_seconds AS "retryMaxDelaySeconds", retry_max_attempts AS "retryMaxAttempts",
       retry_jitter AS "retryJitter", retry_on::text AS "retryOn", signing, honor_retry_after AS "honorRetryAfter",
       notify_url AS "notifyUrl", paused, created_at AS "createdAt", updated_at AS "updatedAt"
FROM tag_policies
WHERE project_id = $1::uuid AND id = $2::uuid
FOR UPDATE
