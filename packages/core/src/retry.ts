// Retry policy merge and decision (docs/api/tag-policies.md, retries). Pure
// functions of the policies in force when the attempt started.

export type RetryStrategy = "none" | "fixed" | "exponential";
export type RetryOn = "network_only" | "5xx_and_network" | "non_2xx";

export interface RetryFields {
  retryStrategy: RetryStrategy;
  retryInitialDelaySeconds: number | null;
  retryMaxDelaySeconds: number | null;
  retryMaxAttempts: number | null;
  retryJitter: boolean;
  retryOn: RetryOn;
}

export interface MergedRetry {
  strategy: "fixed" | "exponential";
  initialDelay: number;
  maxDelay: number | null;
  maxAttempts: number | null;
  jitter: boolean;
  retryOn: RetryOn;
}

const RESTRICTIVENESS: RetryOn[] = ["network_only", "5xx_and_network", "non_2xx"];

/** Merges the retry fields of a trigger's tags; null when no tag asks for retries. */
export function mergeRetry(policies: readonly RetryFields[]): MergedRetry | null {
  const active = policies.filter((p) => p.retryStrategy !== "none");
  if (active.length === 0) return null;
  const attempts = active.map((p) => p.retryMaxAttempts).filter((n): n is number => n !== null);
  const maxDelays = active.map((p) => p.retryMaxDelaySeconds).filter((n): n is number => n !== null);
  return {
    strategy: active.some((p) => p.retryStrategy === "exponential") ? "exponential" : "fixed",
    initialDelay: Math.max(...active.map((p) => p.retryInitialDelaySeconds ?? 0)),
    maxDelay: maxDelays.length ? Math.max(...maxDelays) : null,
    maxAttempts: attempts.length ? Math.min(...attempts) : null,
    jitter: active.some((p) => p.retryJitter),
    retryOn: RESTRICTIVENESS.find((r) => active.some((p) => p.retryOn === r))!,
  };
}

/**
 * The longest delay an uncapped exponential policy reaches: about 317 years,
 * "never" in practice, while the retry's time still fits a Date and a
 * PostgreSQL timestamp. Past attempt 1024, 2 ** (attempt − 1) is Infinity,
 * which times an initial delay of 0 is NaN, not a time.
 */
const LONGEST_DELAY_SECONDS = 1e10;

/** Seconds to wait after attempt `attempt` (first is 1) failed. */
export function retryDelaySeconds(p: MergedRetry, attempt: number, random: () => number): number {
  const base =
    p.strategy === "fixed" || p.initialDelay === 0 ? p.initialDelay : Math.min(p.initialDelay * 2 ** (attempt - 1), LONGEST_DELAY_SECONDS);
  const capped = p.maxDelay === null || p.strategy === "fixed" ? base : Math.min(base, p.maxDelay);
  return Math.round(p.jitter ? capped * (0.5 + random()) : capped);
}

/** `other`: a final status outside 200–599 (600–999), which only `non_2xx` retries. */
export type FailureKind = "network" | "3xx" | "4xx" | "5xx" | "other";

export function failureKind(responseStatus: number | null): FailureKind {
  if (responseStatus === null) return "network";
  if (responseStatus >= 600 || responseStatus < 300) return "other";
  if (responseStatus >= 500) return "5xx";
  if (responseStatus >= 400) return "4xx";
  return "3xx";
}

function covers(retryOn: RetryOn, kind: FailureKind): boolean {
  switch (retryOn) {
    case "network_only":
      return kind === "network";
    case "5xx_and_network":
      return kind === "network" || kind === "5xx";
    case "non_2xx":
      return true;
    default: {
      const never: never = retryOn;
      return never;
    }
  }
}

/**
 * After a failed attempt: the delay of the next one in seconds, or null when
 * the failure is final (a dead letter, docs/concepts.md, dead letters).
 */
export function nextRetryDelay(policy: MergedRetry | null, kind: FailureKind, attempt: number, random: () => number): number | null {
  if (!policy || !covers(policy.retryOn, kind)) return null;
  if (policy.maxAttempts !== null && attempt >= policy.maxAttempts) return null;
  return retryDelaySeconds(policy, attempt, random);
}

/** Answers whose `Retry-After` a policy with `honorRetryAfter` obeys. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

/**
 * Seconds a `Retry-After` value asks to wait, measured from `now`: whole
 * seconds (`120`) or an HTTP date. Null when absent or unreadable; a date in
 * the past is 0.
 */
export function retryAfterSeconds(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = httpDate(text, now);
  return at === null ? null : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
// The three forms an HTTP date may take (RFC 9110, 5.6.7), which a recipient must all read:
// Sun, 06 Nov 1994 08:49:37 GMT / Sunday, 06-Nov-94 08:49:37 GMT / Sun Nov  6 08:49:37 1994
const IMF_FIXDATE = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 = /^[A-Za-z]{6,9}, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** The day, month, year and clock of an HTTP date in any of its three forms, or null. */
function httpDateParts(text: string, now: Date): { day: string; month: string; year: number; clock: string[] } | null {
  const fixdate = IMF_FIXDATE.exec(text);
  if (fixdate !== null) return { day: fixdate[1]!, month: fixdate[2]!, year: Number(fixdate[3]), clock: fixdate.slice(4, 7) };
  const rfc850 = RFC_850.exec(text);
  if (rfc850 !== null) {
    // a two-digit year more than 50 years ahead is the latest past year ending so
    const thisYear = now.getUTCFullYear();
    const year = Math.floor(thisYear / 100) * 100 + Number(rfc850[3]);
    return { day: rfc850[1]!, month: rfc850[2]!, year: year > thisYear + 50 ? year - 100 : year, clock: rfc850.slice(4, 7) };
  }
  const asctime = ASCTIME.exec(text);
  if (asctime !== null) return { day: asctime[2]!.trim(), month: asctime[1]!, year: Number(asctime[6]), clock: asctime.slice(3, 6) };
  return null;
}

/** Epoch milliseconds of an HTTP date in any of its three forms, or null. Date.parse alone would accept "5" or "2026". */
function httpDate(text: string, now: Date): number | null {
  const parts = httpDateParts(text, now);
  if (parts === null) return null;
  const { day, month, year, clock } = parts;
  const monthIndex = MONTHS.indexOf(month.toLowerCase());
  const [h, mi, s] = clock.map(Number) as [number, number, number];
  if (monthIndex < 0 || h > 23 || mi > 59 || s > 60) return null;
  const at = Date.UTC(year, monthIndex, Number(day), h, mi, s);
  // an impossible day (31 Feb) rolls over in Date.UTC: refuse it
  return new Date(at).getUTCDate() === Number(day) ? at : null;
}

/**
 * The retry delay once the target's `Retry-After` is honoured: at least
 * what the answer asked for (a 429 or 503 only), capped by the policy's
 * `retryMaxDelaySeconds` when it has one, and never less than the policy's
 * own delay. Without a cap, only the longest delay a retry can have at all
 * bounds it (about 317 years: a time that still fits a Date and PostgreSQL).
 */
export function honorRetryAfter(delay: number, status: number | null, retryAfter: number | null, maxDelay: number | null): number {
  if (status === null || !RETRY_AFTER_STATUSES.has(status) || retryAfter === null) return delay;
  return Math.max(delay, Math.min(retryAfter, maxDelay ?? LONGEST_DELAY_SECONDS));
}
