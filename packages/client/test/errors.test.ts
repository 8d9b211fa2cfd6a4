// @ttr/client's errors against a live api: every refusal is a TtrError with
// the status, `_tag` and message the api answered, the `ttr-error` reason of
// an answer with no body, and Retry-After when one is given.
import { randomUUID } from "node:crypto";
import { createClient, isTtrError, type TtrClient, TtrError } from "@ttr/client";
import { createProject } from "@ttr/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";

let api: TestApi;
let ttr: TtrClient;
beforeAll(async () => {
  api = await startApi();
  ttr = createClient({ baseUrl: api.base, apiKey: api.apiKey });
});
afterAll(() => api?.close());

/** The TtrError `promise` rejects with. */
async function refusal(promise: Promise<unknown>): Promise<TtrError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TtrError);
  return err as TtrError;
}

const later = "now | add 1h";

describe("error answers with a JSON body", () => {
  it("401: an unknown key is Unauthorized `Invalid api key`, on the public and the read endpoints", async () => {
    const stranger = createClient({ baseUrl: api.base, apiKey: `ttr_${"x".repeat(40)}` });
    const calls = [() => stranger.schedule({ url: "http://127.0.0.1:9/", scheduledAt: later }), () => stranger.listTriggers(), () => stranger.listTagPolicies()];
    for (const call of calls) {
      const err = await refusal(call());
      expect({ status: err.status, _tag: err._tag, message: err.message, reason: err.reason }).toEqual({
        status: 401,
        _tag: "Unauthorized",
        message: "Invalid api key",
        reason: null,
      });
      expect(isTtrError(err, "Unauthorized")).toBe(true);
      expect(isTtrError(err, "NotFound")).toBe(false);
    }
  });

  it("401 without any credentials: `Unauthorized`", async () => {
    const anonymous = createClient({ baseUrl: api.base });
    const err = await refusal(anonymous.getProject());
    expect([err.status, err._tag, err.message]).toEqual([401, "Unauthorized", "Unauthorized"]);
  });

  it("400 with a message: a URL that is not absolute", async () => {
    const err = await refusal(ttr.schedule({ url: "not a url", scheduledAt: later }));
    expect([err.status, err._tag, err.message, err.reason]).toEqual([400, "BadRequest", "Invalid URL: not a url", null]);
  });

  it("404: a trigger that does not exist", async () => {
    const err = await refusal(ttr.getTrigger(randomUUID()));
    expect([err.status, err._tag, err.message]).toEqual([404, "NotFound", "Trigger not found"]);
    const policy = await refusal(ttr.deleteTagPolicy(randomUUID()));
    expect([policy.status, policy._tag, policy.message]).toEqual([404, "NotFound", "Tag policy not found"]);
  });

  it("410: cancelling twice, and replaying a trigger that has not fired", async () => {
    const { triggerId } = await ttr.schedule({ url: "http://127.0.0.1:9/", scheduledAt: later });
    await ttr.cancel({ triggerId });
    const again = await refusal(ttr.cancel({ triggerId }));
    expect([again.status, again._tag, again.message]).toEqual([410, "Gone", "Job is no longer cancellable (status=cancelled)"]);

    const pending = await ttr.schedule({ url: "http://127.0.0.1:9/", scheduledAt: later });
    const replay = await refusal(ttr.replayTrigger(pending.triggerId));
    expect([replay.status, replay._tag, replay.message]).toEqual([410, "Gone", "Trigger cannot be replayed (status=registered)"]);
  });

  it("402: the monthly quota used up", async () => {
    const { apiKey } = await createProject(api.db, "one-unit", 1);
    const small = createClient({ baseUrl: api.base, apiKey });
    const first = await small.schedule({ url: "http://127.0.0.1:9/", scheduledAt: later });
    expect(first.monthQuotaRemaining).toBe(0);
    const err = await refusal(small.schedule({ url: "http://127.0.0.1:9/", scheduledAt: later }));
    expect([err.status, err._tag, err.message]).toEqual([402, "QuotaExceeded", "Monthly quota of 1 triggers exceeded"]);
  });
});

describe("error answers with no body carry the ttr-error reason", () => {
  it("400 from /bulk: the first value out of shape, as message and reason", async () => {
    const upserts = [{ url: "http://a/" }, { method: "GET" }] as Array<{ url: string }>;
    const err = await refusal(ttr.bulk({ upserts }));
    expect([err.status, err._tag, err.message, err.reason]).toEqual([400, "BadRequest", "upserts[1].url is required", "upserts[1].url is required"]);
  });

  it("400 from /tag-policies: an unknown retry strategy", async () => {
    const err = await refusal(ttr.putTagPolicy({ tag: "t", retryStrategy: "sometimes" as "fixed" }));
    expect(err.status).toBe(400);
    expect(err._tag).toBe("BadRequest");
    expect(err.reason).toMatch(/^retryStrategy must be one of /);
    expect(err.message).toBe(err.reason);
  });

  it("404 from a path the api does not have (a base URL with a wrong prefix)", async () => {
    const misplaced = createClient({ baseUrl: `${api.base}/ttr`, apiKey: api.apiKey });
    const err = await refusal(misplaced.getProject());
    expect([err.status, err._tag, err.reason]).toEqual([404, "NotFound", "No endpoint GET /ttr/project"]);
  });
});

describe("failures without an api answer", () => {
  it("no server listening: Transport, status 0, the cause kept", async () => {
    const nowhere = createClient({ baseUrl: "http://127.0.0.1:9", apiKey: api.apiKey });
    const err = await refusal(nowhere.health());
    expect(err._tag).toBe("Transport");
    expect(err.status).toBe(0);
    expect(err.message).toMatch(/^GET http:\/\/127\.0\.0\.1:9\/healthz got no answer: /);
    expect(err.cause).toBeInstanceOf(Error);
  });

  it("an aborted call rejects with the signal's reason, not a TtrError", async () => {
    const controller = new AbortController();
    const pending = ttr.listTriggers({}, { signal: controller.signal });
    controller.abort(new Error("given up"));
    await expect(pending).rejects.toThrow("given up");
  });

  it("Retry-After of a 503 (through a custom fetch standing in for a proxy in front of ttr)", async () => {
    const seen: string[] = [];
    const proxy = createClient({
      baseUrl: "http://ttr.invalid",
      apiKey: "k",
      fetch: async (url) => {
        seen.push(url);
        return new Response(JSON.stringify({ _tag: "Unavailable", message: "Storage unavailable, try again" }), {
          status: 503,
          headers: { "content-type": "application/json", "retry-after": "5" },
        });
      },
    });
    const err = await refusal(proxy.listExecutions({ deadLetterOnly: true, limit: 5 }));
    expect([err.status, err._tag, err.message, err.retryAfter]).toEqual([503, "Unavailable", "Storage unavailable, try again", 5]);
    expect(seen).toEqual(["http://ttr.invalid/executions?limit=5&deadLetterOnly=true"]);
  });
});
