// What an attempt's result becomes in its execution row, and whether it is
// retried (docs/concepts.md, dead letters, docs/api/tag-policies.md, retries). The
// retry settings are the ones read when the attempt started.
import { failureKind, honorRetryAfter, mergeRetry, nextRetryDelay, retryAfterSeconds } from "@ttr/core";
import type { AttemptRecord, StartedAttempt } from "@ttr/db";
import { type AttemptResult, classify } from "./send.js";

/** null: the response cannot be recorded and the attempt stays open for the reaper (docs/concepts.md, how an attempt is recorded). */
export function recordOf(started: StartedAttempt, result: AttemptResult, completedAt: Date, random: () => number = Math.random): AttemptRecord | null {
  const outcome = classify(result);
  switch (outcome) {
    case "unrecordable":
      return null;
    case "success":
    case "http_failure":
    case "network_failure": {
      const response = result.kind === "response" ? result : null;
      let retryAt: Date | null = null;
      if (outcome !== "success") {
        const merged = mergeRetry(started.policies);
        let delay = nextRetryDelay(merged, failureKind(response?.status ?? null), started.attemptNumber, random);
        // honorRetryAfter (docs/delivery-extras.md): on if any retrying tag's policy sets it
        if (delay !== null && response && started.policies.some((p) => p.retryStrategy !== "none" && p.honorRetryAfter)) {
          delay = honorRetryAfter(delay, response.status, retryAfterSeconds(response.headers["retry-after"], completedAt), merged!.maxDelay);
        }
        if (delay !== null) retryAt = new Date(completedAt.getTime() + delay * 1000);
      }
      return {
        completedAt,
        responseStatus: response?.status ?? null,
        responseHeaders: response?.headers ?? null,
        responseBody: response?.body ?? null,
        responseSize: response?.size ?? null,
        errorMessage: result.kind === "network" ? result.errorMessage : null,
        isDeadLetter: outcome !== "success" && retryAt === null,
        retryAt,
      };
    }
    default: {
      const never: never = outcome;
      return never;
    }
  }
}
