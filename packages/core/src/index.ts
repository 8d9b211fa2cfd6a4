export * from "./errors.js";
export { isPastDated, parseScheduledAt, parseIsoDate, truncateToSecond, type ScheduledAt } from "./scheduled-at.js";
export { checkCron, nextCronTime, nextCronTimes, nextRunAfterSkips, skipsKept, type CronSchedule } from "./cron.js";
export { parseTagsHeader, checkScheduleTags, isPolicyTag, checkTitle, checkCustomKey, checkItemTag, checkStorableText, storableText, MAX_CUSTOM_KEY_LENGTH } from "./tags.js";
export { forwardedHeaders, headersObject, isForwardedName, pairsOf, methodCarriesBody, type HeaderPairs } from "./headers.js";
export * from "./secrets.js";
export * from "./seal.js";
export * from "./webhook.js";
export { ATTEMPT_QUEUE, ATTEMPT_JOB, ATTEMPTS_JOB, ATTEMPTS_PER_JOB, attemptJobOptions, attemptJobs, attemptsOfJob, executionIdsOf, type AttemptJob, type AttemptsJob } from "./jobs.js";
export { mergeRetry, retryDelaySeconds, nextRetryDelay, failureKind, retryAfterSeconds, honorRetryAfter, type MergedRetry, type RetryFields, type RetryOn, type RetryStrategy, type FailureKind } from "./retry.js";
export { checkPolicy, parseWindow, effectiveWindowSeconds, isWindowKey, policyCreateBody, policyUpdateBody, POLICY_DEFAULTS, EXTRA_DEFAULTS, policyExtras, setExtras, MAX_NOTIFY_URL_LENGTH, MAX_THROUGHPUT_WINDOWS, MAX_EFFECTIVE_WINDOW_SECONDS, type PolicyBody, type PolicySettings, type PolicyExtras, type Throughput } from "./policy.js";
export {
  encodeItemBody, bodyHash, itemTags, oneShotStatus, changedJobFields, changedGeneratorFields,
  type DeclaredItem, type ItemRequest, type StoredJob, type StoredGenerator,
} from "./declare-items.js";
export {
  planDeclare, planUpserts, summarize,
  type JobWrite, type GeneratorWrite, type JobCancel, type PlanWrites, type Plan, type PlanInput, type Operation, type OperationName, type TriggerKind,
} from "./declare.js";
