// Tag policies as the api stores them (docs/api/tag-policies.md: fields,
// endpoints, throughput, and the check order). Two stages, in that order:
//
// 1. The body's format: the joi schemas below. A mismatch is a 400 with an
//    empty body and is reported before the credentials are looked at.
// 2. The values: checkPolicy, run after authentication and (on PUT) after
//    the policy was found. It reports the first failing validation message
//    of docs/api/tag-policies.md, in the listed order, and returns the policy to store.
//
// JSON numbers: JSON.parse reads an overflowing literal such as 1e400 as
// Infinity, so non-finite values do reach these checks. They are left to the
// range checks (a throughput rate of Infinity is message 6, a timeout of
// Infinity message 3), except for the two integer fields with no upper bound.
import Joi from "joi";
import { badRequest } from "./errors.js";
import type { RetryFields, RetryOn, RetryStrategy } from "./retry.js";
import { isPolicyTag, storableText } from "./tags.js";

/** `{window: rate}`, e.g. `{"1m": 10, "1d": 0.5}` (docs/api/tag-policies.md, throughput). */
export type Throughput = Record<string, number>;

/** Every stored field of a policy but its identity and timestamps. */
export interface PolicySettings extends RetryFields {
  tag: string;
  /** null, never `{}`: an empty map means no limit and is stored as null */
  throughput: Throughput | null;
  maxConcurrent: number | null;
  requestTimeoutSeconds: number | null;
  /**
   * Opt-in delivery extras (docs/delivery-extras.md). Absent means the
   * default (false, false, null): a policy that uses none of them reads,
   * stores and shows exactly as it did before they existed.
   */
  signing?: boolean;
  honorRetryAfter?: boolean;
  notifyUrl?: string | null;
  /**
   * Opt-in pause (docs/api/tag-policies.md, pausing a tag): the tag's
   * triggers wait as a throughput rate of 0 would make them, while every
   * other setting, the throughput map included, stays as stored. Absent
   * means false, like the delivery extras.
   */
  paused?: boolean;
}

/** The opt-in fields: a policy shows each only when it is not at its default. */
export type PolicyExtras = Required<Pick<PolicySettings, "signing" | "honorRetryAfter" | "notifyUrl" | "paused">>;

/** A POST or PUT body once its format passed; absent fields are undefined, cleared ones null. */
export interface PolicyBody {
  tag?: string;
  throughput?: Throughput | null;
  maxConcurrent?: number | null;
  requestTimeoutSeconds?: number | null;
  retryStrategy?: RetryStrategy;
  retryInitialDelaySeconds?: number | null;
  retryMaxDelaySeconds?: number | null;
  retryMaxAttempts?: number | null;
  retryJitter?: boolean;
  retryOn?: RetryOn;
  signing?: boolean;
  honorRetryAfter?: boolean;
  notifyUrl?: string | null;
  paused?: boolean;
}

/** The defaults of the fields table of docs/api/tag-policies.md: what a POST resets omitted fields to. */
export const POLICY_DEFAULTS: Omit<PolicySettings, "tag" | keyof PolicyExtras> = {
  throughput: null,
  maxConcurrent: null,
  requestTimeoutSeconds: null,
  retryStrategy: "none",
  retryInitialDelaySeconds: null,
  retryMaxDelaySeconds: null,
  retryMaxAttempts: null,
  retryJitter: false,
  retryOn: "5xx_and_network",
};

export const EXTRA_DEFAULTS: PolicyExtras = { signing: false, honorRetryAfter: false, notifyUrl: null, paused: false };

/** All opt-in fields of a policy, defaults filled in. */
export function policyExtras(p: PolicySettings): PolicyExtras {
  return { signing: p.signing ?? false, honorRetryAfter: p.honorRetryAfter ?? false, notifyUrl: p.notifyUrl ?? null, paused: p.paused ?? false };
}

/**
 * The extras that are not at their defaults: what a policy's JSON shows of
 * them, so that a policy without extras looks exactly as before they existed.
 */
export function setExtras(p: PolicySettings): Partial<PolicyExtras> {
  const all = policyExtras(p);
  const out: Partial<PolicyExtras> = {};
  if (all.signing) out.signing = true;
  if (all.honorRetryAfter) out.honorRetryAfter = true;
  if (all.notifyUrl !== null) out.notifyUrl = all.notifyUrl;
  if (all.paused) out.paused = true;
  return out;
}

/** docs/api/tag-policies.md, throughput: a whole number without leading zeros and one unit. */
const WINDOW_KEY = /^[1-9][0-9]*[smhd]$/;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

export const MAX_THROUGHPUT_WINDOWS = 8;
/** docs/api/tag-policies.md, throughput. */
export const MAX_EFFECTIVE_WINDOW_SECONDS = 30 * 86400;
/**
 * A stretched window may pass the maximum by this much. A decimal rate such
 * as 1/30 of a window is not exact in binary floating point, and dividing by
 * it can land a few nanoseconds past 30 days; the scheduler works in whole
 * seconds, so a millisecond of slack decides nothing else.
 */
const STRETCH_SLACK_SECONDS = 0.001;
/**
 * The integer columns are 32-bit. The bounded fields never get near this;
 * maxConcurrent and retryMaxAttempts have no upper bound, and a value past
 * it is stored as it: no tag can have that many attempts in flight, nor a
 * trigger that many attempts.
 */
export const MAX_STORED_INTEGER = 2_147_483_647;
const MAX_DELAY_SECONDS = 86400;
export const MAX_NOTIFY_URL_LENGTH = 2048;

export function isWindowKey(key: string): boolean {
  return WINDOW_KEY.test(key);
}

/** Length of a throughput window key in seconds (`"90s"` → 90, `"1d"` → 86400). */
export function parseWindow(key: string): number {
  if (!WINDOW_KEY.test(key)) throw new RangeError(`Malformed throughput window: ${key}`);
  return Number(key.slice(0, -1)) * UNIT_SECONDS[key.slice(-1)]!;
}

/**
 * The window a rate really spans (docs/api/tag-policies.md, throughput): a rate
 * between 0 and 1 allows one request per window/rate; otherwise the window
 * is what it says. A rate of 0 blocks the tag and stretches nothing.
 */
export function effectiveWindowSeconds(windowSeconds: number, rate: number): number {
  return rate > 0 && rate < 1 ? windowSeconds / rate : windowSeconds;
}

// ---- stage 1: format (400 with an empty body) ------------------------

/** Any JSON number, including the ±Infinity of an overflowing literal; ranges are stage 2's. */
const jsonNumber = () => Joi.number().unsafe().allow(Infinity, -Infinity);
/**
 * joi drops a `__proto__` key silently where JSON.parse keeps it as an own
 * key; it is no window either, so the original object is checked too.
 */
const onlyWindowKeys: Joi.CustomValidator = (value, helpers) =>
  Object.keys(helpers.original as object).every(isWindowKey) ? value : helpers.error("object.unknown");

const FIELDS = {
  // "" is a value for stage 2 (message 1), not a format error
  tag: Joi.string().allow(""),
  throughput: Joi.object().pattern(WINDOW_KEY, jsonNumber()).custom(onlyWindowKeys).allow(null),
  maxConcurrent: jsonNumber().allow(null),
  requestTimeoutSeconds: jsonNumber().allow(null),
  retryStrategy: Joi.string().valid("none", "fixed", "exponential"),
  retryInitialDelaySeconds: jsonNumber().allow(null),
  retryMaxDelaySeconds: jsonNumber().allow(null),
  retryMaxAttempts: jsonNumber().allow(null),
  retryJitter: Joi.boolean(),
  retryOn: Joi.string().valid("network_only", "5xx_and_network", "non_2xx"),
  // the delivery extras: the booleans cannot be null (like retryJitter), the URL can be cleared
  signing: Joi.boolean(),
  honorRetryAfter: Joi.boolean(),
  notifyUrl: Joi.string().allow("", null),
  // pausing a tag: a boolean like retryJitter, never null
  paused: Joi.boolean(),
};

/**
 * PUT's body: any subset of the fields; `tag`, `retryStrategy`,
 * `retryJitter`, `retryOn`, `signing`, `honorRetryAfter` and `paused` may not be null
 * (docs/api/tag-policies.md).
 * Unknown fields are ignored (docs/api/tag-policies.md). Validate with convert off, so
 * `"5"` is not a number and `"true"` not a boolean.
 */
export const policyUpdateBody: Joi.ObjectSchema<PolicyBody> = Joi.object<PolicyBody>(FIELDS).unknown(true).required();

/** POST's body: as PUT's, and `tag` is required. */
export const policyCreateBody: Joi.ObjectSchema<PolicyBody> = policyUpdateBody.keys({ tag: FIELDS.tag.required() });

// ---- stage 2: values (the validation messages in their order; 13 is notifyUrl)

const at = (value: number | null | undefined): value is number => value !== null && value !== undefined;

/** docs/api/tag-policies.md: what makes a new policy worth having. */
function setsALimit(body: PolicyBody): boolean {
  return (
    at(body.maxConcurrent) ||
    at(body.requestTimeoutSeconds) ||
    (body.throughput != null && Object.keys(body.throughput).length > 0) ||
    body.retryStrategy === "fixed" ||
    body.retryStrategy === "exponential" ||
    // a policy may exist only to sign its tag's deliveries or report its dead letters
    body.signing === true ||
    (body.notifyUrl != null && body.notifyUrl !== "") ||
    // a policy may exist only to pause its tag (docs/api/tag-policies.md, pausing a tag)
    body.paused === true
  );
}

/** Message 13: where dead letters are reported must be an absolute http(s) URL. */
function checkNotifyUrl(url: string): void {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {}
  // Written out in full (`http://` or `https://`, no white space): the URL parser would also read
  // "  http://x  " or "http:x", and the value is stored and shown as sent.
  const fits = url.length <= MAX_NOTIFY_URL_LENGTH && storableText(url) && /^https?:\/\//i.test(url) && !/\s/.test(url);
  if (parsed === null || !(parsed.protocol === "http:" || parsed.protocol === "https:") || !fits) {
    throw badRequest(`notifyUrl must be an absolute http or https URL (max ${MAX_NOTIFY_URL_LENGTH} chars)`);
  }
}

/** Messages 5–7. All rates are checked for 6 before any window for 7, as the list orders them. */
function checkThroughput(throughput: Throughput): void {
  const windows = Object.entries(throughput);
  if (windows.length > MAX_THROUGHPUT_WINDOWS) {
    throw badRequest(`At most ${MAX_THROUGHPUT_WINDOWS} throughput windows per policy`);
  }
  for (const [window, rate] of windows) {
    if (!(Number.isFinite(rate) && rate >= 0)) throw badRequest(`Throughput rate for '${window}' must be a finite number ≥ 0`);
  }
  for (const [window, rate] of windows) {
    const effective = effectiveWindowSeconds(parseWindow(window), rate);
    if (effective > MAX_EFFECTIVE_WINDOW_SECONDS + STRETCH_SLACK_SECONDS) {
      const stretched = rate > 0 && rate < 1 ? " (rates below 1 stretch the window by 1/rate)" : "";
      throw badRequest(`Effective window for '${window}' at rate ${rate} exceeds the 30-day maximum${stretched}`);
    }
  }
}

/**
 * Messages 8–12 on the retry fields the policy will have. Range checks see
 * the values as sent, before rounding down (docs/api/tag-policies.md).
 *
 * A negative initial delay is refused with message 9 whatever the strategy:
 * the field's range is 0 to 86400 (docs/api/tag-policies.md), message 9 is the only one
 * naming its lower bound, and storing it under `none` would only move the
 * error to the PUT that later switches the strategy on.
 */
function checkRetry(p: RetryFields): void {
  if (at(p.retryMaxAttempts) && !(p.retryMaxAttempts >= 1)) {
    throw badRequest("retryMaxAttempts must be ≥ 1 (or null for unlimited)");
  }
  const retrying = p.retryStrategy === "fixed" || p.retryStrategy === "exponential";
  const initial = p.retryInitialDelaySeconds;
  if ((retrying && !at(initial)) || (at(initial) && !(initial >= 0))) {
    throw badRequest("retryInitialDelaySeconds is required (≥0) when retryStrategy is 'fixed' or 'exponential'");
  }
  if (at(p.retryMaxDelaySeconds) && !(p.retryMaxDelaySeconds >= 0)) throw badRequest("retryMaxDelaySeconds must be ≥ 0");
  if (at(initial) && initial > MAX_DELAY_SECONDS) throw badRequest("retryInitialDelaySeconds must be ≤ 86400 (1 day)");
  if (at(p.retryMaxDelaySeconds) && p.retryMaxDelaySeconds > MAX_DELAY_SECONDS) {
    throw badRequest("retryMaxDelaySeconds must be ≤ 86400 (1 day)");
  }
}

/** The sent value, null included; the kept one when the field was left out. */
const sent = <T>(value: T | undefined, kept: T): T => (value === undefined ? kept : value);

/** docs/api/tag-policies.md: integer fields are stored rounded down; rates keep their decimals. `+ 0` turns a sent -0 into 0. */
const floor = (value: number | null): number | null => (value === null ? null : Math.floor(value) + 0);
/** An unbounded integer field, rounded down, at most MAX_STORED_INTEGER (1e12 and 1e400, read as Infinity, included). */
const floorAtMost = (value: number | null): number | null => (value === null ? null : Math.min(floor(value)!, MAX_STORED_INTEGER));

/**
 * Checks a POST body (`current` null) or a PUT body against the policy it
 * changes, in the order of the validation messages of docs/api/tag-policies.md, and returns the
 * policy to store. Throws BadRequest with the first failing message.
 *
 * POST starts from the defaults, so omitted fields are reset (docs/api/tag-policies.md);
 * PUT starts from `current`, so only sent fields change and a sent null
 * clears (rule 5). The retry messages judge the merged result (rule 7): a
 * switch to `fixed` needs a delay sent or already stored, and a stored delay
 * cannot be cleared under `fixed` or `exponential`. Checks 1 and 3–7 look at
 * sent values only; stored ones passed them when they were sent.
 *
 * Not checked here: whether a renamed-to tag already has a policy (that
 * takes the database; see the route).
 */
export function checkPolicy(body: PolicyBody, current: PolicySettings | null): PolicySettings {
  // policyCreateBody requires the tag; a caller that skipped it has a bug
  if (current === null && body.tag === undefined) throw new TypeError("checkPolicy: a new policy needs a tag");
  if (body.tag !== undefined && !isPolicyTag(body.tag)) {
    throw badRequest("Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)");
  }
  if (current === null && !setsALimit(body)) {
    throw badRequest("At least one of throughput, concurrency, timeout, or retry strategy must be specified");
  }
  const timeout = body.requestTimeoutSeconds;
  if (at(timeout) && !(timeout >= 1 && timeout <= 3600)) throw badRequest("requestTimeoutSeconds must be between 1 and 3600");
  if (at(body.maxConcurrent) && !(body.maxConcurrent >= 1)) throw badRequest("maxConcurrent must be ≥ 1");
  if (body.throughput != null) checkThroughput(body.throughput);

  const base = current ?? { tag: body.tag!, ...POLICY_DEFAULTS };
  const next: PolicySettings = {
    tag: sent(body.tag, base.tag),
    throughput: sent(body.throughput, base.throughput),
    maxConcurrent: sent(body.maxConcurrent, base.maxConcurrent),
    requestTimeoutSeconds: sent(body.requestTimeoutSeconds, base.requestTimeoutSeconds),
    retryStrategy: sent(body.retryStrategy, base.retryStrategy),
    retryInitialDelaySeconds: sent(body.retryInitialDelaySeconds, base.retryInitialDelaySeconds),
    retryMaxDelaySeconds: sent(body.retryMaxDelaySeconds, base.retryMaxDelaySeconds),
    retryMaxAttempts: sent(body.retryMaxAttempts, base.retryMaxAttempts),
    retryJitter: sent(body.retryJitter, base.retryJitter),
    retryOn: sent(body.retryOn, base.retryOn),
    signing: sent(body.signing, base.signing),
    honorRetryAfter: sent(body.honorRetryAfter, base.honorRetryAfter),
    // "" clears it like null
    notifyUrl: body.notifyUrl === "" ? null : sent(body.notifyUrl, base.notifyUrl),
    paused: sent(body.paused, base.paused),
  };
  checkRetry(next);
  if (body.notifyUrl) checkNotifyUrl(body.notifyUrl);
  const { signing: _s, honorRetryAfter: _h, notifyUrl: _n, paused: _p, ...rest } = next;

  return {
    ...rest,
    ...setExtras(next),
    throughput: next.throughput !== null && Object.keys(next.throughput).length > 0 ? { ...next.throughput } : null,
    maxConcurrent: floorAtMost(next.maxConcurrent),
    requestTimeoutSeconds: floor(next.requestTimeoutSeconds),
    retryInitialDelaySeconds: floor(next.retryInitialDelaySeconds),
    retryMaxDelaySeconds: floor(next.retryMaxDelaySeconds),
    retryMaxAttempts: floorAtMost(next.retryMaxAttempts),
  };
}
