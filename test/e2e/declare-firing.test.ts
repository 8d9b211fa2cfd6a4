// /declare items as they are sent (docs/concepts.md, what the target receives;
// docs/api/declare-and-bulk.md: items, bodies, recurring items).
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, executionsOf, settled } from "../support/rows.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

let sys: System;
printLogsOnFailure(() => sys);
let target: Target;

beforeAll(async () => {
  target = await startTarget();
  sys = await startSystem();
});
afterAll(async () => {
  await sys?.stop();
  await target?.close();
});

async function declare(tag: string, items: unknown[]) {
  const res = await sys.call("POST", "/declare", { "ttr-api-key": sys.apiKey, "Content-Type": "application/json" }, JSON.stringify({ tag, items }));
  expect(res.status, res.text).toBe(200);
  return res.json() as { operations: Array<{ id: string; customKey: string | null; kind: string; operation: string }> };
}

it("sends item headers in lowercase, honours a Host override, sends a text body even with GET and adds no Content-Type", async () => {
  const out = await declare("items", [
    { customKey: "a", url: `${target.base}/item?q=1`, headers: { "X-Mixed-Case": "Value", Host: "virtual.example", "Content-Length": "999", "ttr-extra": "kept" }, body: { _tag: "text", value: "héllo" } },
  ]);
  const [hit] = await target.waitFor("/item", 1);
  expect(hit!.method).toBe("GET");
  expect(hit!.url).toBe("/item?q=1");
  const names = hit!.rawHeaders.filter((_, i) => i % 2 === 0);
  expect(names).toContain("x-mixed-case");
  expect(names).not.toContain("X-Mixed-Case");
  expect(hit!.headers.host).toBe("virtual.example");
  expect(hit!.headers["ttr-extra"]).toBe("kept");
  expect(hit!.headers["content-type"]).toBeUndefined();
  expect(hit!.headers["content-length"]).toBe(String(Buffer.byteLength("héllo")));
  expect(hit!.body.toString("utf8")).toBe("héllo");
  await settled(sys.db, out.operations[0]!.id);
});

it("sends JSON bodies compactly and base64 bodies as bytes", async () => {
  await declare("bodies", [
    { customKey: "json", url: `${target.base}/json`, method: "post", body: { a: [1, 2], b: "x" } },
    { customKey: "b64", url: `${target.base}/b64`, method: "PUT", body: { _tag: "base64", value: "AAEC/w==" } },
  ]);
  const [json] = await target.waitFor("/json", 1);
  expect(json!.method).toBe("POST");
  expect(json!.body.toString()).toBe('{"a":[1,2],"b":"x"}');
  const [b64] = await target.waitFor("/b64", 1);
  expect(b64!.body).toEqual(Buffer.from([0, 1, 2, 255]));
});

it("a forbidden connection header fails the attempt as a Transport error and nothing is sent; a bad URL is an InvalidUrl error", async () => {
  const out = await declare("broken", [
    { customKey: "te", url: `${target.base}/never`, headers: { "Transfer-Encoding": "chunked" } },
    { customKey: "bad-url", url: "not a url" },
  ]);
  const te = out.operations.find((o) => o.customKey === "te")!;
  const bad = out.operations.find((o) => o.customKey === "bad-url")!;
  const [teRun] = await settled(sys.db, te.id);
  expect(teRun).toMatchObject({ errorMessage: `Transport error (GET ${target.base}/never)`, responseStatus: null });
  const [badRun] = await settled(sys.db, bad.id);
  expect(badRun!.errorMessage).toBe("InvalidUrl error (GET not a url)");
  expect(target.hits("/never")).toHaveLength(0);
});

it("a recurring item has its pending instance within about 5 seconds", async () => {
  const out = await declare("recurring", [{ customKey: "every-hour", url: `${target.base}/hourly`, scheduledAt: "cron(0 * * * *)" }]);
  const gen = out.operations[0]!;
  expect(gen.kind).toBe("generator");
  const instance = await eventually(async () => {
    const rows = await sys.db.$queryRawUnsafe<Array<{ id: string; scheduled_at: Date }>>(
      `SELECT id::text, scheduled_at FROM triggers WHERE generator_id = $1::uuid AND status = 'registered'`,
      gen.id,
    );
    return rows[0];
  }, 5000, "the first instance");
  expect(instance.scheduled_at.getUTCMinutes()).toBe(0);
  expect(await executionsOf(sys.db, instance.id)).toHaveLength(0);
});
