// /tag-policies endpoints (docs/api/tag-policies.md): create and replace, partial PUT,
// rename, delete, the list, rounding and throughput window boundaries.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Policy {
  id: string;
  projectId: string;
  tag: string;
  throughput: Record<string, number> | null;
  maxConcurrent: number | null;
  requestTimeoutSeconds: number | null;
  retryStrategy: string;
  retryInitialDelaySeconds: number | null;
  retryMaxDelaySeconds: number | null;
  retryMaxAttempts: number | null;
  retryJitter: boolean;
  retryOn: string;
  createdAt: string;
  updatedAt: string;
}

const headers = () => ({ "ttr-api-key": api.apiKey, "Content-Type": "application/json" });

async function post(body: unknown): Promise<Policy> {
  const res = await api.call("POST", "/tag-policies", headers(), JSON.stringify(body));
  expect(res.status, res.text).toBe(200);
  return res.json().tagPolicy;
}
async function put(id: string, body: unknown): Promise<Policy> {
  const res = await api.call("PUT", `/tag-policies/${id}`, headers(), JSON.stringify(body));
  expect(res.status, res.text).toBe(200);
  return res.json().tagPolicy;
}
const putRaw = (id: string, body: unknown) => api.call("PUT", `/tag-policies/${id}`, headers(), JSON.stringify(body));
const postRaw = (body: unknown) => api.call("POST", "/tag-policies", headers(), JSON.stringify(body));
const del = (id: string) => api.call("DELETE", `/tag-policies/${id}`, { "ttr-api-key": api.apiKey });
async function list(path = "/tag-policies"): Promise<Policy[]> {
  const res = await api.call("GET", path, { "ttr-api-key": api.apiKey });
  expect(res.status).toBe(200);
  return res.json().tagPolicies;
}
const rowsOf = (tag: string) =>
  api.db.$queryRawUnsafe<Array<{ id: string }>>(`SELECT id::text FROM tag_policies WHERE project_id = $1::uuid AND tag = $2`, api.projectId, tag);

const DEFAULTS = {
  throughput: null,
  maxConcurrent: null,
  requestTimeoutSeconds: null,
  retryStrategy: "none",
  retryInitialDelaySeconds: null,
  retryMaxDelaySeconds: null,
  retryMaxAttempts: null,
  retryJitter: false,
  retryOn: "5xx_and_network",
};

describe("POST /tag-policies", () => {
  it("creates a policy: every field, defaults null, times with milliseconds", async () => {
    const res = await api.call("POST", "/tag-policies", headers(), JSON.stringify({ tag: "new", maxConcurrent: 3 }));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const { tagPolicy } = res.json();
    expect(Object.keys(tagPolicy).sort()).toEqual(
      ["id", "projectId", "tag", "throughput", "maxConcurrent", "requestTimeoutSeconds", "retryStrategy", "retryInitialDelaySeconds", "retryMaxDelaySeconds", "retryMaxAttempts", "retryJitter", "retryOn", "createdAt", "updatedAt"].sort(),
    );
    expect(tagPolicy).toMatchObject({ ...DEFAULTS, tag: "new", projectId: api.projectId, maxConcurrent: 3 });
    expect(tagPolicy.id).toMatch(UUID);
    expect(tagPolicy.createdAt).toMatch(ISO_MS);
    expect(tagPolicy.updatedAt).toBe(tagPolicy.createdAt);
  });

  it("stores every field as sent", async () => {
    const all = {
      tag: "all-fields",
      throughput: { "1s": 2, "1m": 30.5, "1d": 0.5 },
      maxConcurrent: 4,
      requestTimeoutSeconds: 3600,
      retryStrategy: "exponential",
      retryInitialDelaySeconds: 0,
      retryMaxDelaySeconds: 86400,
      retryMaxAttempts: 1,
      retryJitter: true,
      retryOn: "non_2xx",
    };
    expect(await post(all)).toMatchObject(all);
    expect((await list()).find((p) => p.tag === "all-fields")).toMatchObject(all);
  });

  it("replaces the tag's policy: id and createdAt kept, omitted fields reset, updatedAt later", async () => {
    const first = await post({ tag: "replaced", maxConcurrent: 2, throughput: { "1m": 5 }, retryStrategy: "fixed", retryInitialDelaySeconds: 3, retryJitter: true, retryOn: "network_only" });
    const second = await post({ tag: "replaced", requestTimeoutSeconds: 10 });
    expect(second).toEqual({ ...DEFAULTS, id: first.id, projectId: api.projectId, tag: "replaced", requestTimeoutSeconds: 10, createdAt: first.createdAt, updatedAt: second.updatedAt });
    expect(Date.parse(second.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));
    expect(await rowsOf("replaced")).toHaveLength(1);
  });

  it("racing creates of one tag end in one policy", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => post({ tag: "race", maxConcurrent: i + 1 })));
    expect(new Set(results.map((p) => p.id)).size).toBe(1);
    expect(await rowsOf("race")).toHaveLength(1);
  });

  it("rounds integers down and keeps rate decimals", async () => {
    const p = await post({ tag: "rounding", maxConcurrent: 2.7, requestTimeoutSeconds: 1.99, retryStrategy: "fixed", retryInitialDelaySeconds: 0.5, retryMaxDelaySeconds: 10.9, retryMaxAttempts: 3.999, throughput: { "1m": 2.75, "1h": 0.125 } });
    expect(p).toMatchObject({ maxConcurrent: 2, requestTimeoutSeconds: 1, retryInitialDelaySeconds: 0, retryMaxDelaySeconds: 10, retryMaxAttempts: 3, throughput: { "1m": 2.75, "1h": 0.125 } });
  });

  it("stores maxConcurrent and retryMaxAttempts past 2,147,483,647 (1e400 included) as 2,147,483,647, a limit no tag reaches", async () => {
    // 1e400 is a JSON number that reads as Infinity
    const res = await api.call("POST", "/tag-policies", headers(), '{"tag":"huge","maxConcurrent":3000000000,"retryStrategy":"fixed","retryInitialDelaySeconds":1,"retryMaxAttempts":1e400}');
    expect(res.status).toBe(200);
    expect(res.json().tagPolicy).toMatchObject({ maxConcurrent: 2147483647, retryMaxAttempts: 2147483647 });
    expect((await post({ tag: "huge", maxConcurrent: 2147483647.5 })).maxConcurrent).toBe(2147483647);
  });
});

describe("throughput windows (docs/api/tag-policies.md, throughput)", () => {
  const windowError = async (throughput: unknown) => (await postRaw({ tag: "win", throughput })).json().message as string;

  it("30 days at rate 1 is the longest window; 31 days is refused", async () => {
    expect((await post({ tag: "win-30d", throughput: { "30d": 1 } })).throughput).toEqual({ "30d": 1 });
    expect((await post({ tag: "win-720h", throughput: { "720h": 1, "43200m": 1, "2592000s": 1 } })).throughput).toEqual({ "720h": 1, "43200m": 1, "2592000s": 1 });
    expect(await windowError({ "31d": 1 })).toBe("Effective window for '31d' at rate 1 exceeds the 30-day maximum");
    expect(await windowError({ "2592001s": 100 })).toBe("Effective window for '2592001s' at rate 100 exceeds the 30-day maximum");
  });

  it("rates below 1 stretch the window", async () => {
    expect((await post({ tag: "win-stretch", throughput: { "15d": 0.5, "3d": 0.1 } })).throughput).toEqual({ "15d": 0.5, "3d": 0.1 });
    expect(await windowError({ "1d": 0.03 })).toBe("Effective window for '1d' at rate 0.03 exceeds the 30-day maximum (rates below 1 stretch the window by 1/rate)");
    expect(await windowError({ "16d": 0.5 })).toBe("Effective window for '16d' at rate 0.5 exceeds the 30-day maximum (rates below 1 stretch the window by 1/rate)");
  });

  it("rate 0 blocks and is accepted; a negative rate is refused", async () => {
    expect((await post({ tag: "win-zero", throughput: { "1s": 0 } })).throughput).toEqual({ "1s": 0 });
    expect(await windowError({ "1s": -1 })).toBe("Throughput rate for '1s' must be a finite number ≥ 0");
  });

  it("8 windows are accepted, 9 refused", async () => {
    const windows = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${i + 1}m`, i + 1]));
    expect((await post({ tag: "win-8", throughput: windows(8) })).throughput).toEqual(windows(8));
    expect(await windowError(windows(9))).toBe("At most 8 throughput windows per policy");
  });

  it("an empty throughput is stored as no limit", async () => {
    expect((await post({ tag: "win-empty", throughput: {}, maxConcurrent: 1 })).throughput).toBeNull();
  });
});

describe("PUT /tag-policies/<id>", () => {
  let base: Policy;
  const full = {
    throughput: { "1m": 10 },
    maxConcurrent: 5,
    requestTimeoutSeconds: 60,
    retryStrategy: "exponential",
    retryInitialDelaySeconds: 2,
    retryMaxDelaySeconds: 120,
    retryMaxAttempts: 6,
    retryJitter: true,
    retryOn: "non_2xx",
  };
  beforeAll(async () => {
    base = await post({ tag: "put-base", ...full });
  });

  it("changes only the sent fields and returns the whole policy", async () => {
    const p = await put(base.id, { maxConcurrent: 8.6 });
    expect(p).toEqual({ ...base, maxConcurrent: 8, updatedAt: p.updatedAt });
    expect(Date.parse(p.updatedAt)).toBeGreaterThan(Date.parse(base.updatedAt));
  });

  it("{} only moves updatedAt", async () => {
    const before = (await list()).find((p) => p.id === base.id)!;
    const p = await put(base.id, {});
    expect(p).toEqual({ ...before, updatedAt: p.updatedAt });
    expect(Date.parse(p.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect(p.createdAt).toBe(base.createdAt);
  });

  it("null clears the nullable fields, and an empty throughput clears it too", async () => {
    const a = await post({ tag: "put-null", ...full, retryStrategy: "none" });
    const cleared = await put(a.id, { maxConcurrent: null, requestTimeoutSeconds: null, retryMaxAttempts: null, retryInitialDelaySeconds: null, retryMaxDelaySeconds: null, throughput: null });
    expect(cleared).toEqual({ ...a, ...DEFAULTS, retryJitter: true, retryOn: "non_2xx", updatedAt: cleared.updatedAt });
    const b = await post({ tag: "put-empty", throughput: { "1h": 3 } });
    expect((await put(b.id, { throughput: {} })).throughput).toBeNull();
  });

  it("tag, retryStrategy, retryJitter and retryOn cannot be null", async () => {
    for (const field of ["tag", "retryStrategy", "retryJitter", "retryOn"]) {
      const res = await putRaw(base.id, { [field]: null });
      expect(res.status).toBe(400);
      expect(res.body.length).toBe(0);
    }
  });

  it("a PUT may clear every setting", async () => {
    const a = await post({ tag: "put-clear-all", ...full });
    const p = await put(a.id, { throughput: {}, maxConcurrent: null, requestTimeoutSeconds: null, retryStrategy: "none" });
    expect(p).toMatchObject({ throughput: null, maxConcurrent: null, requestTimeoutSeconds: null, retryStrategy: "none" });
  });

  it("throughput is replaced as a whole, not merged", async () => {
    const a = await post({ tag: "put-tp", throughput: { "1s": 1, "1m": 10 } });
    expect((await put(a.id, { throughput: { "1h": 0.5 } })).throughput).toEqual({ "1h": 0.5 });
  });

  it("renames with tag; the old tag is free again", async () => {
    const a = await post({ tag: "old-name", maxConcurrent: 1 });
    const renamed = await put(a.id, { tag: "new-name" });
    expect(renamed).toMatchObject({ id: a.id, tag: "new-name", maxConcurrent: 1, createdAt: a.createdAt });
    expect(await rowsOf("old-name")).toHaveLength(0);
    expect((await post({ tag: "old-name", maxConcurrent: 2 })).id).not.toBe(a.id);
    // renaming onto its own tag is no conflict
    expect((await put(a.id, { tag: "new-name" })).tag).toBe("new-name");
  });

  it("refuses a rename to a malformed tag or onto a tag that has a policy", async () => {
    const a = await post({ tag: "rename-a", maxConcurrent: 1 });
    await post({ tag: "rename-b", maxConcurrent: 2 });
    const bad = await putRaw(a.id, { tag: "Rename-B" });
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual({ _tag: "BadRequest", message: "Invalid tag (only a-z 0-9 _ - allowed, max 50 chars)" });
    const taken = await putRaw(a.id, { tag: "rename-b", maxConcurrent: 9 });
    expect(taken.status).toBe(400);
    expect(taken.json()).toEqual({ _tag: "BadRequest", message: "Tag policy for 'rename-b' already exists" });
    // nothing of the refused PUT was written
    expect((await list()).find((p) => p.id === a.id)).toEqual(a);
  });

  it("racing renames onto one free tag: one wins, the other is told the tag is taken", async () => {
    const a = await post({ tag: "race-a", maxConcurrent: 1 });
    const b = await post({ tag: "race-b", maxConcurrent: 1 });
    const replies = await Promise.all([putRaw(a.id, { tag: "race-target" }), putRaw(b.id, { tag: "race-target" })]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(replies.find((r) => r.status === 400)!.json().message).toBe("Tag policy for 'race-target' already exists");
    expect(await rowsOf("race-target")).toHaveLength(1);
  });

  it("a missing body is a 400 with an empty body", async () => {
    const res = await api.call("PUT", `/tag-policies/${base.id}`, headers());
    expect(res.status).toBe(400);
    expect(res.body.length).toBe(0);
  });
});

describe("DELETE /tag-policies/<id>", () => {
  it("deletes once, then 404 for DELETE and PUT", async () => {
    const a = await post({ tag: "gone", maxConcurrent: 1 });
    const res = await del(a.id);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect(await rowsOf("gone")).toHaveLength(0);
    const again = await del(a.id);
    expect(again.status).toBe(404);
    expect(again.json()).toEqual({ _tag: "NotFound", message: "Tag policy not found" });
    expect((await putRaw(a.id, {})).status).toBe(404);
    expect((await list()).some((p) => p.id === a.id)).toBe(false);
  });

  it("a POST after delete creates a new policy with a new id", async () => {
    const a = await post({ tag: "reborn", maxConcurrent: 1 });
    await del(a.id);
    expect((await post({ tag: "reborn", maxConcurrent: 1 })).id).not.toBe(a.id);
  });
});

describe("GET /tag-policies", () => {
  it("lists every policy newest first by createdAt and ignores query parameters", async () => {
    const created: Policy[] = [];
    for (const tag of ["list-1", "list-2", "list-3"]) {
      created.push(await post({ tag, maxConcurrent: 1 }));
      await new Promise((r) => setTimeout(r, 5));
    }
    // replacing and updating do not move a policy up the list
    await post({ tag: "list-1", maxConcurrent: 9 });
    await put(created[1]!.id, { maxConcurrent: 9 });
    const all = await list();
    const count = Number((await api.db.$queryRawUnsafe<Array<{ n: bigint }>>(`SELECT count(*) AS n FROM tag_policies WHERE project_id = $1::uuid`, api.projectId))[0]!.n);
    expect(all).toHaveLength(count);
    const times = all.map((p) => Date.parse(p.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all.filter((p) => p.tag.startsWith("list-")).map((p) => p.tag)).toEqual(["list-3", "list-2", "list-1"]);
    expect(await list("/tag-policies?limit=1&offset=2&cursor=x")).toEqual(all);
  });
});
