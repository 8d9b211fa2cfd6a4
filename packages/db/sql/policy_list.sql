-- A project's tag policies, newest first by creation (docs/api/tag-policies.md:
-- no pagination). id breaks ties between policies created in the
-- same millisecond, so the order is stable.
-- Params: $1 project_id. Returns the policies.
SELECT id::text AS id, project_id::text AS "projectId", tag, throughput,
       max_concurrent AS "maxConcurrent", request_timeout_seconds AS "requestTimeoutSeconds",
       retry_strategy::text AS "retryStrategy", retry_initial_delay_seconds AS "retryInitialDelaySeconds",
       retry_max_delay_seconds AS "retryMaxDelaySeconds", retry_max_attempts AS "retryMaxAttempts",
       retry_jitter AS "retryJitter", retry_on::text AS "retryOn", signing, honor_retry_after AS "honorRetryAfter",
       notify_url AS "notifyUrl", paused, created_at AS "createdAt", updated_at AS "updatedAt"
FROM tag_policies
WHERE project_id = $1::uuid
ORDER BY tag_policies.created_at DESC, tag_policies.id DESC
