// honorRetryAfter: reading Retry-After and the delay it leads to.
import { describe, expect, it } from "vitest";
import { honorRetryAfter, retryAfterSeconds } from "../src/retry.js";

const NOW = new Date("2026-11-25T12:00:00.000Z");

describe("retryAfterSeconds", () => {
  it("reads whole seconds and HTTP dates", () => {
    expect(retryAfterSeconds("120", NOW)).toBe(120);
    expect(retryAfterSeconds(" 0 ", NOW)).toBe(0);
    expect(retryAfterSeconds("Wed, 25 Nov 2026 12:01:30 GMT", NOW)).toBe(90);
    expect(retryAfterSeconds("Wed, 25 Nov 2026 12:00:00 GMT", new Date("2026-11-25T11:59:59.200Z"))).toBe(1);
    expect(retryAfterSeconds("Tue, 24 Nov 2026 12:00:00 GMT", NOW)).toBe(0);
  });

  it("reads the two obsolete HTTP date forms a recipient must also accept", () => {
    expect(retryAfterSeconds("Wednesday, 25-Nov-26 12:10:00 GMT", NOW)).toBe(600);
    expect(retryAfterSeconds("Wed Nov 25 12:10:00 2026", NOW)).toBe(600);
    expect(retryAfterSeconds("Wed Dec  2 12:00:00 2026", NOW)).toBe(7 * 86400);
    // a two-digit year more than 50 years ahead is in the past century
    expect(retryAfterSeconds("Monday, 25-Nov-85 12:00:00 GMT", NOW)).toBe(0);
  });

  it("is null when absent or unreadable", () => {
    for (const v of [undefined, "", "-5", "1.5", "soon", "2026-11-25T12:01:00Z", "Wed, 99 Foo 2026 GMT", "Wed, 31 Feb 2026 12:00:00 GMT", "Wed, 25 Nov 2026 25:00:00 GMT", "Wed Nov 25 12:10:00 26"]) {
      expect(retryAfterSeconds(v, NOW), String(v)).toBeNull();
    }
  });
});

describe("honorRetryAfter", () => {
  it("waits at least what a 429 or 503 asked, capped by retryMaxDelaySeconds", () => {
    expect(honorRetryAfter(5, 429, 30, null)).toBe(30);
    expect(honorRetryAfter(5, 503, 30, 20)).toBe(20);
    expect(honorRetryAfter(40, 503, 30, null)).toBe(40);
    expect(honorRetryAfter(5, 503, 86400, 86400)).toBe(86400);
  });

  it("without retryMaxDelaySeconds waits what was asked, even past a day; only the longest possible delay bounds it", () => {
    expect(honorRetryAfter(5, 503, 90_000, null)).toBe(90_000);
    expect(honorRetryAfter(5, 429, 31_536_000, null)).toBe(31_536_000);
    expect(honorRetryAfter(5, 503, 1e30, null)).toBe(1e10);
    expect(new Date(Date.now() + honorRetryAfter(5, 503, Number("9".repeat(40)), null) * 1000).getUTCFullYear()).toBeLessThan(9999);
  });

  it("ignores other statuses, network failures and answers without the header", () => {
    expect(honorRetryAfter(5, 500, 30, null)).toBe(5);
    expect(honorRetryAfter(5, 502, 30, null)).toBe(5);
    expect(honorRetryAfter(5, null, 30, null)).toBe(5);
    expect(honorRetryAfter(5, 429, null, null)).toBe(5);
  });
});
