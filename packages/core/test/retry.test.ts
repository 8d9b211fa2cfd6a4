// Which failures each retryOn class retries (docs/api/tag-policies.md, retries).
import { describe, expect, it } from "vitest";
import { failureKind, type MergedRetry, nextRetryDelay, type RetryOn } from "../src/retry.js";

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
