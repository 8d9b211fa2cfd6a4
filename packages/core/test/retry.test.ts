// Which failures each retryOn class retries (docs/api/tag-policies.md, retries).
import { describe, expect, it } from "vitest";
import { failureKind, type MergedRetry, nextRetryDelay, type RetryOn, retryDelaySeconds } from "../src/retry.js";

const policy = (retryOn: RetryOn): MergedRetry => ({ strategy: "fixed", initialDelay: 5, maxDelay: null, maxAttempts: null, jitter: false, retryOn });
const retried = (retryOn: RetryOn, status: number | null) => nextRetryDelay(policy(retryOn), failureKind(status), 1, () => 0.5) !== null;

describe("retryOn classes", () => {
  it("sorts final statuses: 3xx, 4xx, 5xx, network, and anything else", () => {
    expect([301, 399, 400, 499, 500, 599, 600, 999, null].map(failureKind)).toEqual(["3xx", "3xx", "4xx", "4xx", "5xx", "5xx", "other", "other", "network"]);
  });

  it("network_only retries network failures; 5xx_and_network adds 500–599 only; non_2xx retries every failure", () => {
    const statuses = [302, 404, 503, 600, 999, null] as const;
    expect(statuses.map((s) => retried("network_only", s))).toEqual([false, false, false, false, false, true]);
    expect(statuses.map((s) => retried("5xx_and_network", s))).toEqual([false, false, true, false, false, true]);
    expect(statuses.map((s) => retried("non_2xx", s))).toEqual([true, true, true, true, true, true]);
  });
});

describe("exponential delays at any attempt number", () => {
  const exponential = (initialDelay: number, maxDelay: number | null): MergedRetry => ({ strategy: "exponential", initialDelay, maxDelay, maxAttempts: null, jitter: false, retryOn: "non_2xx" });

  it("an initial delay of 0 stays 0 past attempt 1024, where 2^(n−1) overflows", () => {
    for (const attempt of [1, 1024, 1025, 5000]) {
      expect(retryDelaySeconds(exponential(0, null), attempt, () => 0.5), `attempt ${attempt}`).toBe(0);
      expect(retryDelaySeconds(exponential(0, 60), attempt, () => 0.5), `attempt ${attempt}, capped`).toBe(0);
    }
  });

  it("an uncapped delay stops growing at a time a Date and PostgreSQL can still hold", () => {
    for (const attempt of [40, 1025, 5000]) {
      const delay = retryDelaySeconds(exponential(86_400, null), attempt, () => 0.5);
      expect(Number.isFinite(delay)).toBe(true);
      expect(Number.isNaN(new Date(Date.now() + delay * 1000).getTime())).toBe(false);
    }
    expect(retryDelaySeconds(exponential(3, 60), 1025, () => 0.5)).toBe(60);
    expect(retryDelaySeconds(exponential(3, null), 4, () => 0.5)).toBe(24);
  });
});
