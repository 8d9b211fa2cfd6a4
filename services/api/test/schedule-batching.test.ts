// /schedule under concurrency: calls that arrive together share statements
// (key lookup, quota units, one INSERT for plain one-shots), yet each call
// gets its own trigger with its own request, and a revoked key fails at once.
import { createApiKey, revokeApiKey } from "@ttr/db";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi({ quota: 1000 });
});
afterAll(() => api.close());

interface Row {
  id: string;
  title: string | null;
  body: Uint8Array | null;
  method: string;
  status: string;
  tags: string[];
  scheduled_at: Date;
}

it("300 parallel plain one-shots: each answer's trigger holds that call's title, body, method, tags, status and time", async () => {
  const calls = Array.from({ length: 300 }, (_, i) => {
    const past = i % 10 === 0;
    const method = i % 3 === 0 ? "PUT" : "POST";
    return api
      .call(
        method,
        "/schedule",
        {
          "ttr-api-key": api.apiKey,
          "ttr-url": `http://127.0.0.1:9/n/${i}`,
          "ttr-scheduled-at": past ? "2001-01-01T00:00:00Z" : `2099-01-01T00:00:${String(i % 60).padStart(2, "0")}Z`,
          "ttr-title": `call ${i}`,
          "ttr-tags": `t${i % 7}`,
          "content-type": "application/octet-stream",
        },
        Buffer.from([i % 256, 0, 255, i >> 8]),
      )
      .then((r) => ({ i, past, method, status: r.status, json: r.json() as { triggerId: string; scheduledAt: string; operation: string; kind: string; monthQuotaRemaining: number } }));
  });
  const replies = await Promise.all(calls);
  for (const r of replies) expect(r.status).toBe(200);
  expect(new Set(replies.map((r) => r.json.triggerId)).size).toBe(300);
  expect(replies.map((r) => r.json.monthQuotaRemaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => 700 + i));

  const rows = await api.db.$queryRawUnsafe<Row[]>(`SELECT id::text, title, body, method, status::text, tags, scheduled_at FROM triggers`);
  expect(rows).toHaveLength(300);
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const r of replies) {
    const row = byId.get(r.json.triggerId)!;
    expect(r.json).toMatchObject({ operation: "schedule", kind: "job" });
    expect(row.title).toBe(`call ${r.i}`);
    expect([...row.body!]).toEqual([r.i % 256, 0, 255, r.i >> 8]);
    expect(row.method).toBe(r.method);
    expect(row.tags).toEqual([`t${r.i % 7}`]);
    expect(row.status).toBe(r.past ? "skipped" : "registered");
    expect(row.scheduled_at.toISOString()).toBe(r.json.scheduledAt);
  }
});

it("a key revoked between two calls is refused on the second, even with calls of it in flight", async () => {
  const { apiKeyId, apiKey } = await createApiKey(api.db, api.projectId);
  const headers = { "ttr-api-key": apiKey, "ttr-url": "http://127.0.0.1:9/", "ttr-scheduled-at": "2099-01-01T00:00:00Z" };
  const first = await Promise.all(Array.from({ length: 20 }, () => api.call("POST", "/schedule", headers)));
  expect(first.map((r) => r.status)).toEqual(Array(20).fill(200));
  const inFlight = Array.from({ length: 20 }, () => api.call("POST", "/schedule", headers));
  expect(await revokeApiKey(api.db, apiKeyId)).toBe(true);
  await Promise.all(inFlight);
  const after = await api.call("POST", "/schedule", headers);
  expect(after.status).toBe(401);
  expect(after.json()).toEqual({ _tag: "Unauthorized", message: "Invalid api key" });
});
