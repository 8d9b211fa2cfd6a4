// Every attempt result maps to exactly one outcome
// (docs/concepts.md: outcomes, timeouts, responses that cannot be recorded).
import { describe, expect, it } from "vitest";
import { type AttemptResult, classify, type Outcome } from "../src/outcome.js";

const response = (status: number): AttemptResult => ({ kind: "response", status, headers: {}, body: "", size: 0 });

describe("classify", () => {
  it.each<[AttemptResult, Outcome]>([
    [response(200), "success"],
    [response(204), "success"],
    [response(299), "success"],
    [response(100), "http_failure"],
    [response(199), "http_failure"],
    [response(300), "http_failure"],
    [response(301), "http_failure"],
    [response(304), "http_failure"],
    [response(308), "http_failure"],
    [response(404), "http_failure"],
    [response(429), "http_failure"],
    [response(500), "http_failure"],
    [response(503), "http_failure"],
    [{ kind: "network", errorMessage: "Transport error (GET http://x/)", timedOut: false }, "network_failure"],
    [{ kind: "network", errorMessage: "Decode error (200 GET http://x/)", timedOut: false }, "network_failure"],
    [{ kind: "network", errorMessage: '{"errorMessage":"Request timed out after 3s"}', timedOut: true }, "network_failure"],
    [{ kind: "unrecordable", status: 200 }, "unrecordable"],
  ])("%j is %s", (result, outcome) => {
    expect(classify(result)).toBe(outcome);
  });

  it("throws on a result kind it does not know", () => {
    expect(() => classify({ kind: "other" } as unknown as AttemptResult)).toThrow(/unclassified/);
  });
});
