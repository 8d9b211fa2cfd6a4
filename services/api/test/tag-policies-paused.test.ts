// `paused` on /tag-policies (docs/api/tag-policies.md, pausing a tag):
// shown only when true, so a policy that never paused reads as before;
// pausing and resuming leave every other setting, the throughput map
// included, as stored.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const headers = () => ({ "ttr-api-key": api.apiKey, "Content-Type": "application/json" });
const post = (body: unknown) => api.call("POST", "/tag-policies", headers(), JSON.stringify(body));
const put = (id: string, body: unknown) => api.call("PUT", `/tag-policies/${id}`, headers(), JSON.stringify(body));

describe("paused on /tag-policies", () => {
  it("is absent from a policy that is not paused, and shown as true when it is", async () => {
    const plain = (await post({ tag: "plain", throughput: { "1m": 5 } })).json().tagPolicy;
    expect(plain).not.toHaveProperty("paused");
    const paused = await post({ tag: "held", throughput: { "1m": 5 }, paused: true });
    expect(paused.status, paused.text).toBe(200);
    expect(paused.json().tagPolicy).toMatchObject({ paused: true, throughput: { "1m": 5 } });
    const listed = (await api.call("GET", "/tag-policies", { "ttr-api-key": api.apiKey })).json().tagPolicies;
    expect(listed.find((p: { tag: string }) => p.tag === "held")).toEqual(paused.json().tagPolicy);
    expect(listed.find((p: { tag: string }) => p.tag === "plain")).not.toHaveProperty("paused");
  });

  it("pausing and resuming by PUT keep the throughput map and every other field", async () => {
    const created = (await post({ tag: "keep", throughput: { "1s": 2, "1h": 100 }, maxConcurrent: 3, requestTimeoutSeconds: 20 })).json().tagPolicy;
    const paused = (await put(created.id, { paused: true })).json().tagPolicy;
    const { updatedAt: _a, paused: flag, ...rest } = paused;
    const { updatedAt: _b, ...before } = created;
    expect(flag).toBe(true);
    expect(rest).toEqual(before);
    const resumed = (await put(created.id, { paused: false })).json().tagPolicy;
    expect(resumed).not.toHaveProperty("paused");
    const { updatedAt: _c, ...after } = resumed;
    expect(after).toEqual(before);
    const rows = await api.db.$queryRawUnsafe<Array<{ paused: boolean; throughput: unknown }>>("SELECT paused, throughput FROM tag_policies WHERE id = $1::uuid", created.id);
    expect(rows[0]).toEqual({ paused: false, throughput: { "1s": 2, "1h": 100 } });
  });

  it("paused: true alone makes a policy worth creating; paused: false alone does not", async () => {
    const only = await post({ tag: "only-paused", paused: true });
    expect(only.status, only.text).toBe(200);
    expect(only.json().tagPolicy).toMatchObject({ tag: "only-paused", throughput: null, maxConcurrent: null, paused: true });
    const refused = await post({ tag: "not-paused", paused: false });
    expect(refused.status).toBe(400);
    expect(refused.json()).toEqual({ _tag: "BadRequest", message: "At least one of throughput, concurrency, timeout, or retry strategy must be specified" });
  });

  it("POST replaces: a paused tag whose new policy leaves paused out is resumed", async () => {
    await post({ tag: "replace", maxConcurrent: 1, paused: true });
    expect((await post({ tag: "replace", maxConcurrent: 1 })).json().tagPolicy).not.toHaveProperty("paused");
  });

  it("a null or non-boolean paused is a format error: 400 with an empty body", async () => {
    const { id } = (await post({ tag: "fmt", maxConcurrent: 1 })).json().tagPolicy;
    for (const paused of [null, "true", 1, {}]) {
      const created = await post({ tag: "fmt", maxConcurrent: 1, paused });
      expect(created.status, JSON.stringify(paused)).toBe(400);
      expect(created.text).toBe("");
      const changed = await put(id, { paused });
      expect(changed.status, JSON.stringify(paused)).toBe(400);
      expect(changed.text).toBe("");
    }
  });
});
