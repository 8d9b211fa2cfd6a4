import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/errors.js";
import {
  checkPolicy,
  effectiveWindowSeconds,
  isWindowKey,
  type PolicyBody,
  type PolicySettings,
  parseWindow,
  policyCreateBody,
  policyUpdateBody,
} from "../src/policy.js";

const MSG = {
  tag: "Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)",
  nothing: "At least one of throughput, concurrency, timeout, or retry strategy must be specified",
  timeout: "requestTimeoutSeconds must be between 1 and 3600",
  concurrent: "maxConcurrent must be ≥ 1",
  windows: "At most 8 throughput windows per policy",
  attempts: "retryMaxAttempts must be ≥ 1 (or null for unlimited)",
  initialRequired: "retryInitialDelaySeconds is required (≥0) when retryStrategy is 'fixed' or 'exponential'",
  maxDelayNegative: "retryMaxDelaySeconds must be ≥ 0",
  initialTooLong: "retryInitialDelaySeconds must be ≤ 86400 (1 day)",
  maxDelayTooLong: "retryMaxDelaySeconds must be ≤ 86400 (1 day)",
};
const rateMsg = (w: string) => `Throughput rate for '${w}' must be a finite number ≥ 0`;
const stretchMsg = (w: string, rate: number) =>
  `Effective window for '${w}' at rate ${rate} exceeds the 30-day maximum (rates below 1 stretch the window by 1/rate)`;
const windowMsg = (w: string, rate: number) => `Effective window for '${w}' at rate ${rate} exceeds the 30-day maximum`;

const STORED: PolicySettings = {
  tag: "stored",
  throughput: { "1m": 5 },
  maxConcurrent: 3,
  requestTimeoutSeconds: 30,
  retryStrategy: "fixed",
  retryInitialDelaySeconds: 10,
  retryMaxDelaySeconds: 60,
  retryMaxAttempts: 4,
  retryJitter: true,
  retryOn: "non_2xx",
};

/** The BadRequest message `body` is refused with, or null when it passes. */
function refusal(body: PolicyBody, current: PolicySettings | null = null): string | null {
  try {
    checkPolicy(body, current);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).tag).toBe("BadRequest");
    expect((err as ApiError).emptyBody).toBe(false);
    return (err as ApiError).message;
  }
}
const create = (body: PolicyBody) => refusal({ tag: "t", ...body });
const formatOk = (schema: typeof policyCreateBody, body: unknown) => !schema.validate(body, { convert: false }).error;

describe("parseWindow and effectiveWindowSeconds (docs/api/tag-policies.md, throughput)", () => {
  it.each([
    ["1s", 1],
    ["90s", 90],
    ["1m", 60],
    ["15m", 900],
    ["1h", 3600],
    ["24h", 86400],
    ["1d", 86400],
    ["30d", 2592000],
    ["100d", 8640000],
  ])("%s is %i seconds", (key, seconds) => {
    expect(isWindowKey(key)).toBe(true);
    expect(parseWindow(key)).toBe(seconds);
  });

  it.each(["", "s", "0s", "01m", "1w", "1M", "1S", "1 s", " 1s", "1.5h", "-1s", "1sm", "1", "1y", "１s"])("%j is malformed", (key) => {
    expect(isWindowKey(key)).toBe(false);
    expect(() => parseWindow(key)).toThrow(RangeError);
  });

  it("stretches only rates strictly between 0 and 1", () => {
    expect(effectiveWindowSeconds(86400, 0.5)).toBe(172800);
    expect(effectiveWindowSeconds(86400, 0.03)).toBeCloseTo(2880000);
    expect(effectiveWindowSeconds(86400, 1)).toBe(86400);
    expect(effectiveWindowSeconds(86400, 7.5)).toBe(86400);
    expect(effectiveWindowSeconds(86400, 0)).toBe(86400);
  });

  it("accepts every window of at most 30 days at the rate that stretches it to exactly 30 days", () => {
    // decimal rates are not exact in binary: the check must not trip over the last bit
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2592000 }), (seconds) => {
        const rate = seconds / 2592000;
        expect(create({ throughput: { [`${seconds}s`]: rate } })).toBeNull();
      }),
      { numRuns: 2000 },
    );
    expect(create({ throughput: { "3d": 0.1, "15d": 0.5, "6d": 0.2 } })).toBeNull();
  });
});

describe("format schemas (docs/api/tag-policies.md, 400 with an empty body)", () => {
  it("POST needs an object with a string tag", () => {
    for (const body of [undefined, null, [], "x", 5, true, {}, { tag: null }, { tag: 5 }]) {
      expect(formatOk(policyCreateBody, body)).toBe(false);
    }
    expect(formatOk(policyCreateBody, { tag: "" })).toBe(true);
    expect(formatOk(policyCreateBody, { tag: "NOT valid!" })).toBe(true);
  });

  it("PUT accepts {} and any subset", () => {
    expect(formatOk(policyUpdateBody, {})).toBe(true);
    expect(formatOk(policyUpdateBody, { retryOn: "non_2xx", whatever: [1] })).toBe(true);
    expect(formatOk(policyUpdateBody, undefined)).toBe(false);
  });

  it.each([
    ["maxConcurrent", "5"],
    ["maxConcurrent", true],
    ["requestTimeoutSeconds", "30"],
    ["retryJitter", "true"],
    ["retryJitter", 1],
    ["retryJitter", null],
    ["retryStrategy", "linear"],
    ["retryStrategy", "FIXED"],
    ["retryStrategy", null],
    ["retryOn", "5xx"],
    ["retryOn", null],
    ["tag", null],
    ["throughput", []],
    ["throughput", "1s:1"],
    ["throughput", { "1w": 1 }],
    ["throughput", { "0s": 1 }],
    ["throughput", { "01s": 1 }],
    ["throughput", { "1s": "1" }],
    ["throughput", { "1s": null }],
    ["throughput", JSON.parse('{"__proto__": 1}')],
    ["retryInitialDelaySeconds", "10"],
    ["retryMaxDelaySeconds", false],
    ["retryMaxAttempts", "3"],
  ])("%s = %j is a format error", (field, value) => {
    expect(formatOk(policyUpdateBody, { [field]: value })).toBe(false);
    expect(formatOk(policyCreateBody, { tag: "t", [field]: value })).toBe(false);
  });

  it.each([
    ["maxConcurrent", 0.5],
    ["maxConcurrent", -Infinity],
    ["maxConcurrent", 2147483647],
    ["maxConcurrent", 2147483648],
    ["maxConcurrent", JSON.parse("1e400")],
    ["retryMaxAttempts", JSON.parse("1e400")],
    ["requestTimeoutSeconds", Infinity],
    ["retryInitialDelaySeconds", -Infinity],
    ["throughput", { "1s": Infinity, "1m": -1 }],
    ["throughput", {}],
    ["throughput", null],
    ["maxConcurrent", null],
  ])("%s = %j is left to the value checks", (field, value) => {
    expect(formatOk(policyUpdateBody, { [field]: value })).toBe(true);
  });
});

describe("checkPolicy on POST: messages in the order of docs/api/tag-policies.md", () => {
  it("1: tag format", () => {
    for (const tag of ["", "A", "has space", "é", "a".repeat(51), "a.b", "tag!"]) expect(refusal({ tag, maxConcurrent: 1 })).toBe(MSG.tag);
    for (const tag of ["a", "a".repeat(50), "a-b_c9", "0", "_", "-"]) expect(refusal({ tag, maxConcurrent: 1 })).toBeNull();
    // before every other check
    expect(refusal({ tag: "BAD", maxConcurrent: 0 })).toBe(MSG.tag);
  });

  it("2: something to enforce", () => {
    for (const body of [{}, { throughput: {} }, { throughput: null }, { retryStrategy: "none" as const }, { retryMaxAttempts: 3, retryJitter: true, retryOn: "non_2xx" as const }, { maxConcurrent: null, requestTimeoutSeconds: null }]) {
      expect(create(body)).toBe(MSG.nothing);
    }
    for (const body of [{ throughput: { "1s": 0 } }, { maxConcurrent: 1 }, { requestTimeoutSeconds: 1 }, { retryStrategy: "fixed" as const, retryInitialDelaySeconds: 0 }, { retryStrategy: "exponential" as const, retryInitialDelaySeconds: 1 }]) {
      expect(create(body)).toBeNull();
    }
    // a sent but out-of-range value counts as set, and gets its own message
    expect(create({ maxConcurrent: 0 })).toBe(MSG.concurrent);
    expect(create({ retryStrategy: "fixed" })).toBe(MSG.initialRequired);
  });

  it("3: requestTimeoutSeconds 1 to 3600, judged as sent", () => {
    for (const v of [0, 0.99, -1, 3600.5, 3601, Infinity, -Infinity]) expect(create({ requestTimeoutSeconds: v })).toBe(MSG.timeout);
    for (const v of [1, 1.5, 3600, 300]) expect(create({ requestTimeoutSeconds: v })).toBeNull();
    expect(create({ requestTimeoutSeconds: 0, maxConcurrent: 0 })).toBe(MSG.timeout);
  });

  it("4: maxConcurrent at least 1, judged as sent", () => {
    for (const v of [0, 0.5, 0.999, -3, -Infinity]) expect(create({ maxConcurrent: v })).toBe(MSG.concurrent);
    expect(create({ maxConcurrent: 1 })).toBeNull();
    expect(create({ maxConcurrent: 0, throughput: { "1s": -1 } })).toBe(MSG.concurrent);
  });

  it("5: at most 8 windows", () => {
    const windows = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${i + 1}m`, 1]));
    expect(create({ throughput: windows(8) })).toBeNull();
    expect(create({ throughput: windows(9) })).toBe(MSG.windows);
    expect(create({ throughput: { ...windows(9), "1s": -1 } })).toBe(MSG.windows);
  });

  it("6: rates finite and ≥ 0, every rate before any window length", () => {
    expect(create({ throughput: { "1s": -1 } })).toBe(rateMsg("1s"));
    expect(create({ throughput: { "1s": -0.001 } })).toBe(rateMsg("1s"));
    expect(create({ throughput: { "1h": Infinity } })).toBe(rateMsg("1h"));
    expect(create({ throughput: { "1h": -Infinity } })).toBe(rateMsg("1h"));
    expect(create({ throughput: { "31d": 1, "2m": -1 } })).toBe(rateMsg("2m"));
    expect(create({ throughput: { "1s": 0, "1m": 2.5, "1h": 1e300 } })).toBeNull();
  });

  it("7: effective window at most 30 days", () => {
    expect(create({ throughput: { "30d": 1 } })).toBeNull();
    expect(create({ throughput: { "720h": 1 } })).toBeNull();
    expect(create({ throughput: { "2592000s": 3 } })).toBeNull();
    expect(create({ throughput: { "31d": 1 } })).toBe(windowMsg("31d", 1));
    expect(create({ throughput: { "2592001s": 5 } })).toBe(windowMsg("2592001s", 5));
    expect(create({ throughput: { "31d": 0 } })).toBe(windowMsg("31d", 0));
    expect(create({ throughput: { "30d": 0 } })).toBeNull();
    expect(create({ throughput: { "1d": 0.03 } })).toBe(stretchMsg("1d", 0.03));
    expect(create({ throughput: { "15d": 0.5 } })).toBeNull();
    expect(create({ throughput: { "15d": 0.49 } })).toBe(stretchMsg("15d", 0.49));
    expect(create({ throughput: { "1s": 1e-7 } })).toBe(stretchMsg("1s", 1e-7));
    expect(create({ throughput: { "1s": 5e-324 } })).toBe(stretchMsg("1s", 5e-324));
    expect(create({ throughput: { [`1${"0".repeat(400)}d`]: 1 } })).toBe(windowMsg(`1${"0".repeat(400)}d`, 1));
    // the first offending window in the order sent
    expect(create({ throughput: { "1m": 1, "40d": 2, "1d": 0.01 } })).toBe(windowMsg("40d", 2));
  });

  it("8–12: retry fields", () => {
    const fixed = { retryStrategy: "fixed" as const, retryInitialDelaySeconds: 5 };
    for (const v of [0, 0.5, -1, -Infinity]) expect(create({ ...fixed, retryMaxAttempts: v })).toBe(MSG.attempts);
    expect(create({ ...fixed, retryMaxAttempts: 1 })).toBeNull();
    expect(create({ ...fixed, retryMaxAttempts: null })).toBeNull();

    for (const strategy of ["fixed", "exponential"] as const) {
      expect(create({ retryStrategy: strategy })).toBe(MSG.initialRequired);
      expect(create({ retryStrategy: strategy, retryInitialDelaySeconds: null })).toBe(MSG.initialRequired);
      expect(create({ retryStrategy: strategy, retryInitialDelaySeconds: -1 })).toBe(MSG.initialRequired);
      expect(create({ retryStrategy: strategy, retryInitialDelaySeconds: -0.5 })).toBe(MSG.initialRequired);
      expect(create({ retryStrategy: strategy, retryInitialDelaySeconds: 0 })).toBeNull();
    }
    // a negative delay is refused even while the strategy is none (see checkRetry)
    expect(create({ maxConcurrent: 1, retryInitialDelaySeconds: -1 })).toBe(MSG.initialRequired);
    expect(create({ maxConcurrent: 1, retryInitialDelaySeconds: null })).toBeNull();

    expect(create({ ...fixed, retryMaxDelaySeconds: -1 })).toBe(MSG.maxDelayNegative);
    expect(create({ ...fixed, retryMaxDelaySeconds: -0.1 })).toBe(MSG.maxDelayNegative);
    expect(create({ ...fixed, retryMaxDelaySeconds: 0 })).toBeNull();
    expect(create({ ...fixed, retryInitialDelaySeconds: 86400.5 })).toBe(MSG.initialTooLong);
    expect(create({ ...fixed, retryInitialDelaySeconds: Infinity })).toBe(MSG.initialTooLong);
    expect(create({ ...fixed, retryInitialDelaySeconds: 86400 })).toBeNull();
    expect(create({ ...fixed, retryMaxDelaySeconds: 86401 })).toBe(MSG.maxDelayTooLong);
    expect(create({ ...fixed, retryMaxDelaySeconds: 86400 })).toBeNull();
    // with strategy none the fields are still range-checked (they are stored)
    expect(create({ maxConcurrent: 1, retryMaxDelaySeconds: 90000 })).toBe(MSG.maxDelayTooLong);
    expect(create({ maxConcurrent: 1, retryMaxAttempts: 0 })).toBe(MSG.attempts);
  });

  it("reports only the first failure, in the listed order", () => {
    const everything: PolicyBody = {
      tag: "BAD",
      requestTimeoutSeconds: 0,
      maxConcurrent: 0,
      throughput: { "1s": -1, "2s": 1, "3s": 1, "4s": 1, "5s": 1, "6s": 1, "7s": 1, "8s": 1, "9s": 1 },
      retryStrategy: "fixed",
      retryInitialDelaySeconds: 90000,
      retryMaxDelaySeconds: 90000,
      retryMaxAttempts: 0,
    };
    const order: Array<[keyof PolicyBody, unknown, string]> = [
      ["tag", "ok", MSG.tag],
      ["requestTimeoutSeconds", 10, MSG.timeout],
      ["maxConcurrent", 1, MSG.concurrent],
      ["throughput", { "1s": -1 }, MSG.windows],
      ["throughput", { "31d": 1 }, rateMsg("1s")],
      ["throughput", { "1m": 1 }, windowMsg("31d", 1)],
      ["retryMaxAttempts", 1, MSG.attempts],
      ["retryMaxDelaySeconds", -1, MSG.initialTooLong],
      ["retryInitialDelaySeconds", -1, MSG.maxDelayNegative],
      ["retryMaxDelaySeconds", 90000, MSG.initialRequired],
      ["retryInitialDelaySeconds", 5, MSG.initialRequired],
      ["retryMaxDelaySeconds", 5, MSG.maxDelayTooLong],
    ];
    const body: Record<string, unknown> = { ...everything };
    for (const [field, fixedValue, expected] of order) {
      expect(refusal(body as PolicyBody)).toBe(expected);
      body[field] = fixedValue;
    }
    expect(refusal(body as PolicyBody)).toBeNull();
  });
});

describe("checkPolicy: the stored result", () => {
  it("POST fills defaults and rounds integers down", () => {
    expect(checkPolicy({ tag: "t", maxConcurrent: 2.7, requestTimeoutSeconds: 1.9, retryStrategy: "exponential", retryInitialDelaySeconds: 0.5, retryMaxDelaySeconds: 86399.99, retryMaxAttempts: 3.2, throughput: { "1m": 2.5, "1h": 0.25 } }, null)).toEqual({
      tag: "t",
      throughput: { "1m": 2.5, "1h": 0.25 },
      maxConcurrent: 2,
      requestTimeoutSeconds: 1,
      retryStrategy: "exponential",
      retryInitialDelaySeconds: 0,
      retryMaxDelaySeconds: 86399,
      retryMaxAttempts: 3,
      retryJitter: false,
      retryOn: "5xx_and_network",
    });
    expect(checkPolicy({ tag: "t", maxConcurrent: 1, throughput: {} }, null)).toMatchObject({ throughput: null, retryStrategy: "none", retryJitter: false });
  });

  it("POST ignores the current policy's values: replace, never merge", () => {
    // the route passes null for POST even when the tag has a policy
    expect(checkPolicy({ tag: "stored", maxConcurrent: 9 }, null)).toMatchObject({ throughput: null, requestTimeoutSeconds: null, retryStrategy: "none", retryOn: "5xx_and_network" });
  });

  it("PUT {} changes nothing", () => {
    expect(checkPolicy({}, STORED)).toEqual(STORED);
  });

  it("PUT changes only sent fields; null clears nullable ones; {} throughput clears", () => {
    expect(checkPolicy({ maxConcurrent: 7.9 }, STORED)).toEqual({ ...STORED, maxConcurrent: 7 });
    expect(checkPolicy({ throughput: {} }, STORED)).toEqual({ ...STORED, throughput: null });
    expect(checkPolicy({ throughput: null, maxConcurrent: null, requestTimeoutSeconds: null, retryMaxAttempts: null, retryMaxDelaySeconds: null }, STORED)).toEqual({
      ...STORED,
      throughput: null,
      maxConcurrent: null,
      requestTimeoutSeconds: null,
      retryMaxAttempts: null,
      retryMaxDelaySeconds: null,
    });
    expect(checkPolicy({ throughput: { "1h": 0.5 } }, STORED).throughput).toEqual({ "1h": 0.5 });
    expect(checkPolicy({ tag: "renamed", retryJitter: false, retryOn: "network_only" }, STORED)).toEqual({ ...STORED, tag: "renamed", retryJitter: false, retryOn: "network_only" });
  });

  it("PUT needs no minimum content", () => {
    const off = { throughput: null, maxConcurrent: null, requestTimeoutSeconds: null, retryStrategy: "none" as const };
    expect(refusal(off, STORED)).toBeNull();
  });

  it("PUT checks retry rules on the result", () => {
    const none: PolicySettings = { ...STORED, retryStrategy: "none", retryInitialDelaySeconds: null };
    expect(refusal({ retryStrategy: "fixed" }, none)).toBe(MSG.initialRequired);
    expect(refusal({ retryStrategy: "exponential", retryInitialDelaySeconds: 3 }, none)).toBeNull();
    expect(refusal({ retryStrategy: "fixed" }, { ...none, retryInitialDelaySeconds: 0 })).toBeNull();
    expect(refusal({ retryInitialDelaySeconds: null }, STORED)).toBe(MSG.initialRequired);
    expect(refusal({ retryInitialDelaySeconds: null, retryStrategy: "none" }, STORED)).toBeNull();
    expect(refusal({ retryMaxAttempts: 0 }, STORED)).toBe(MSG.attempts);
    // PUT has no message 2 and checks the tag only when sent
    expect(refusal({}, { ...STORED, tag: "stored" })).toBeNull();
    expect(refusal({ tag: "Nope" }, STORED)).toBe(MSG.tag);
  });

  it("any accepted body stores integers within their ranges", () => {
    const num = fc.oneof(fc.double({ min: -10, max: 100000, noNaN: true }), fc.constant(null));
    fc.assert(
      fc.property(num, num, num, num, num, fc.constantFrom("none", "fixed", "exponential"), (mc, to, init, max, att, strategy) => {
        let out: PolicySettings;
        try {
          out = checkPolicy({ tag: "p", maxConcurrent: mc, requestTimeoutSeconds: to, retryInitialDelaySeconds: init, retryMaxDelaySeconds: max, retryMaxAttempts: att, retryStrategy: strategy as PolicySettings["retryStrategy"], throughput: { "1s": 1 } }, null);
        } catch (err) {
          expect(err).toBeInstanceOf(ApiError);
          return;
        }
        for (const v of [out.maxConcurrent, out.requestTimeoutSeconds, out.retryInitialDelaySeconds, out.retryMaxDelaySeconds, out.retryMaxAttempts]) {
          if (v !== null) expect(Number.isInteger(v)).toBe(true);
        }
        if (out.maxConcurrent !== null) expect(out.maxConcurrent).toBeGreaterThanOrEqual(1);
        if (out.requestTimeoutSeconds !== null) expect(out.requestTimeoutSeconds).toBeGreaterThanOrEqual(1);
        if (out.requestTimeoutSeconds !== null) expect(out.requestTimeoutSeconds).toBeLessThanOrEqual(3600);
        if (out.retryStrategy !== "none") expect(out.retryInitialDelaySeconds).not.toBeNull();
        for (const d of [out.retryInitialDelaySeconds, out.retryMaxDelaySeconds]) if (d !== null) expect(d >= 0 && d <= 86400).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
