// Dashboard reads run on a pool of their own with a statement timeout: a
// read the server cannot finish in time answers 503 Unavailable with
// Retry-After, and while reads are stuck the public API's writes go on.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { signIn, type TestSession } from "../../../test/support/session.js";

const TIMEOUT_MS = 1_000;
let api: TestApi;
let session: TestSession;
let locker: pg.Client;

beforeAll(async () => {
  api = await startApi({ readTimeoutMs: TIMEOUT_MS });
  session = await signIn(api);
  locker = new pg.Client({ connectionString: api.database.url });
  await locker.connect();
});
afterAll(async () => {
  await locker?.end();
  await api?.close();
});

describe("a dashboard read past DB_READ_TIMEOUT_MS", () => {
  it("answers 503 Unavailable with Retry-After, and /schedule still answers meanwhile", async () => {
    // Hold the executions table so that every read of it waits until cancelled.
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE executions IN ACCESS EXCLUSIVE MODE");
    try {
      const started = Date.now();
      // More reads than the read pool has connections: all of them wait.
      let firstReadAnswered = Number.POSITIVE_INFINITY;
      const reads = [1, 2, 3].map(() => session.call("GET", "/executions").finally(() => (firstReadAnswered = Math.min(firstReadAnswered, Date.now()))));
      const write = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/", "ttr-scheduled-at": "now | add 1h" });
      const written = Date.now();
      expect(write.status).toBe(200);
      for (const res of await Promise.all(reads)) {
        expect(res.status).toBe(503);
        expect(res.headers["retry-after"]).toBe("5");
        expect(res.json()).toEqual({ _tag: "Unavailable", message: "The read took too long, try again" });
      }
      expect(written).toBeLessThan(firstReadAnswered);
      expect(firstReadAnswered - started).toBeGreaterThanOrEqual(TIMEOUT_MS);
    } finally {
      await locker.query("ROLLBACK");
    }
    const after = await session.call("GET", "/executions");
    expect(after.status).toBe(200);
  });
});
