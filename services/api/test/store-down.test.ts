// Requests that need PostgreSQL while it cannot be reached (connections
// refused, as when it is stopped): 503 Unavailable with Retry-After, at once,
// not 500; /readyz says which store is down.
import type { AddressInfo } from "node:net";
import { createApp } from "@ttr/api/app";
import { createServer } from "@ttr/api/server";
import { createDb, createPgRunner, createReadsRunner } from "@ttr/db";
import { createLogger, createRedis, createRegistry, freePort } from "@ttr/platform";
import { afterAll, beforeAll, expect, it } from "vitest";
import { redisUrl } from "../../../test/support/db.js";
import { request } from "../../../test/support/http.js";
import { unwatchApi, watchApi } from "../../../test/support/openapi-conformance.js";

let base: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const down = `postgresql://postgres@127.0.0.1:${await freePort()}/ttr`;
  const db = createDb(down, { max: 2, applicationName: "ttr-test" });
  const reads = createReadsRunner(down, { max: 2, statementTimeoutMs: 5_000 });
  const pg = createPgRunner(down, { max: 2, applicationName: "ttr-test" });
  const redis = createRedis(redisUrl(), "ttr-test", createLogger("test", "error"));
  const app = createApp({ db, reads, pg, redis, log: createLogger("api", "error"), registry: createRegistry("api") });
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  watchApi(base);
  close = async () => {
    unwatchApi(base);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await Promise.all([db.$disconnect(), reads.end(), pg.end(), redis.quit()]);
  };
});
afterAll(() => close?.());

const key = { "ttr-api-key": `ttr_${"a".repeat(43)}` };
const json = { ...key, "content-type": "application/json" };

it.each([
  ["POST /schedule", "POST", "/schedule", { ...key, "ttr-url": "http://127.0.0.1:9/x", "ttr-scheduled-at": "now | add 1h" }, undefined],
  ["DELETE /cancel", "DELETE", "/cancel", { ...key, "ttr-trigger-id": "00000000-0000-7000-8000-000000000001" }, undefined],
  ["POST /bulk", "POST", "/bulk", json, JSON.stringify({ cancels: [{ tag: "t" }] })],
  ["POST /declare", "POST", "/declare", json, JSON.stringify({ tag: "t", items: [] })],
] as const)("%s answers 503 Unavailable with Retry-After at once", async (_label, method, path, headers, body) => {
  const started = Date.now();
  const res = await request(base, method, path, headers, body);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(res.status).toBe(503);
  expect(res.json()).toEqual({ _tag: "Unavailable", message: "Storage unavailable, try again" });
  expect(res.headers["retry-after"]).toBe("5");
});

it("HEAD /schedule answers its 503 without a body, the message in ttr-error", async () => {
  const res = await request(base, "HEAD", "/schedule", { ...key, "ttr-url": "http://127.0.0.1:9/x", "ttr-scheduled-at": "now | add 1h" });
  expect([res.status, res.headers["retry-after"], res.headers["ttr-error"], res.body.length]).toEqual([503, "5", "Storage unavailable, try again", 0]);
});

it("/readyz answers 503 naming postgres", async () => {
  const res = await request(base, "GET", "/readyz");
  expect(res.status).toBe(503);
  expect(res.json()).toEqual({ status: "unavailable", down: ["postgres"] });
});
