// The storage watch's probe hears PostgreSQL's answer even when the event
// loop was busy past the probe's deadline (a 10 MiB declaration being parsed
// and planned): the answer arrived meanwhile and waits unread, and a busy
// loop is no outage. A server that says nothing is still silence.
import type { AddressInfo } from "node:net";
import express from "express";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { heardWithinProbeTime, watchStorage } from "../src/http/storage-watch.js";

let database: TestDatabase;

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.drop();
});

function busyFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // the event loop does nothing else meanwhile
  }
}

it("an answer that came while the event loop was busy past the deadline is heard", async () => {
  // a connected client writes its query at once, so it is on its way before the loop goes busy
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const heard = heardWithinProbeTime(client.query("SELECT 1"), 300);
    busyFor(800);
    expect(await heard).toBe(true);
  } finally {
    await client.end();
  }
});

it("so is one that needs a connection made first (several round trips once the loop runs again)", async () => {
  const cold = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    const heard = heardWithinProbeTime(cold.query("SELECT 1"), 300);
    busyFor(800);
    expect(await heard).toBe(true);
  } finally {
    await cold.end();
  }
});

it("a server that says nothing is silence, busy loop or not", async () => {
  const started = Date.now();
  const heard = heardWithinProbeTime(new Promise(() => {}), 300);
  busyFor(800);
  expect(await heard).toBe(false);
  expect(Date.now() - started).toBeLessThan(1500);
});

it("a request whose probe the busy loop held up for far longer than its deadline is not answered 503: the watch asks again", async () => {
  let probes = 0;
  let unavailable = 0;
  const app = express();
  app.use(
    watchStorage({
      // the first probe's own time limit runs out while the loop is busy, its answer unread
      answers: () => (++probes === 1 ? new Promise((_, reject) => setTimeout(() => reject(new Error("Query read timeout")), 3000)) : Promise.resolve(1)),
      unavailable(res) {
        unavailable++;
        res.status(503).end();
      },
    }),
  );
  app.get("/", async (_req, res) => {
    await new Promise((r) => setTimeout(r, 2100)); // the watch asks at 2 s
    busyFor(3500);
    await new Promise((r) => setTimeout(r, 2500));
    if (!res.headersSent) res.status(200).end("ok");
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  try {
    const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(answer.status).toBe(200);
    expect(unavailable).toBe(0);
    expect(probes).toBeGreaterThanOrEqual(2);
  } finally {
    server.close();
  }
}, 20_000);
