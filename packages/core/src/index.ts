export * from "./errors.js";
export { parseScheduledAt, parseIsoDate, truncateToSecond, type ScheduledAt } from "./scheduled-at.js";
export { checkCron, nextCronTime, nextCronTimes, type CronSchedule } from "./cron.js";
export { parseTagsHeader, checkScheduleTags, isPolicyTag, checkTitle } from "./tags.js";
export { forwardedHeaders, headersObject, pairsOf, methodCarriesBody, type HeaderPairs } from "./headers.js";
export * from "./secrets.js";
export { ATTEMPT_QUEUE, ATTEMPT_JOB, attemptJobOptions, checkAttemptJob, type AttemptJob } from "./jobs.js";
export { mergeRetry, retryDelaySeconds, nextRetryDelay, failureKind, type MergedRetry, type RetryFields, type RetryOn, type RetryStrategy, type FailureKind } from "./retry.js";
