// The delivery extras' policy fields (docs/delivery-extras.md): signing,
// honorRetryAfter, notifyUrl. Shown only when set, so a policy without them
// reads as before; their format and values checked like the other fields.
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
const URL_MESSAGE = "notifyUrl must be an absolute http or https URL (max 2048 chars)";

describe("signing, honorRetryAfter and notifyUrl on /tag-policies", () => {
  it("are stored and shown when set, and absent from a policy that does not set them", async () => {
    const plain = await post({ tag: "plain", maxConcurrent: 1 });
    expect(Object.keys(plain.json().tagPolicy)).not.toEqual(expect.arrayContaining(["signing"]));
    for (const field of ["signing", "honorRetryAfter", "notifyUrl"]) expect(plain.json().tagPolicy).not.toHaveProperty(field);

    const all = await post({ tag: "extras", maxConcurrent: 1, signing: true, honorRetryAfter: true, notifyUrl: "https://hooks.example.com/dead?x=1" });
    expect(all.status, all.text).toBe(200);
    expect(all.json().tagPolicy).toMatchObject({ signing: true, honorRetryAfter: true, notifyUrl: "https://hooks.example.com/dead?x=1" });
    const listed = await api.call("GET", "/tag-policies", { "ttr-api-key": api.apiKey });
    expect(listed.json().tagPolicies.find((p: { tag: string }) => p.tag === "extras")).toEqual(all.json().tagPolicy);
  });

  it("signing or a notifyUrl alone make a policy worth creating; honorRetryAfter alone does not", async () => {
    expect((await post({ tag: "only-signing", signing: true })).status).toBe(200);
    expect((await post({ tag: "only-notify", notifyUrl: "http://10.0.0.1:8080/x" })).status).toBe(200);
    const refused = await post({ tag: "only-ra", honorRetryAfter: true });
    expect(refused.status).toBe(400);
    expect(refused.json().message).toBe("At least one of throughput, concurrency, timeout, or retry strategy must be specified");
    expect((await post({ tag: "off-signing", signing: false })).status).toBe(400);
  });

  it("PUT changes only sent extras; false and null switch them off and they disappear", async () => {
    const { id } = (await post({ tag: "toggle", maxConcurrent: 1, signing: true, notifyUrl: "https://a.example/n" })).json().tagPolicy;
    const unchanged = (await put(id, { maxConcurrent: 2 })).json().tagPolicy;
    expect(unchanged).toMatchObject({ maxConcurrent: 2, signing: true, notifyUrl: "https://a.example/n" });
    const off = (await put(id, { signing: false, notifyUrl: null })).json().tagPolicy;
    expect(off).not.toHaveProperty("signing");
    expect(off).not.toHaveProperty("notifyUrl");
    const emptyClears = (await put(id, { notifyUrl: "https://b.example/n" })).json().tagPolicy;
    expect(emptyClears.notifyUrl).toBe("https://b.example/n");
    expect((await put(id, { notifyUrl: "" })).json().tagPolicy).not.toHaveProperty("notifyUrl");
    // POST replaces: extras left out go back to off
    expect((await post({ tag: "toggle", maxConcurrent: 1 })).json().tagPolicy).not.toHaveProperty("honorRetryAfter");
  });

  it("a wrong type or a null boolean is a format error: 400 with an empty body", async () => {
    for (const body of [{ signing: null }, { signing: "true" }, { honorRetryAfter: 1 }, { honorRetryAfter: null }, { notifyUrl: 5 }, { notifyUrl: ["https://x"] }]) {
      const res = await post({ tag: "fmt", maxConcurrent: 1, ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text).toBe("");
    }
  });

  it("a notifyUrl must be an absolute http(s) URL, checked after the retry messages", async () => {
    for (const notifyUrl of ["not a url", "/relative", "ftp://files.example/x", "mailto:a@b.example", `https://x.example/${"a".repeat(2048)}`, "https://x.example/\u0000", "https://x.example/\ud800", "  https://x.example/a  ", "http:x.example/a", "https://x.example/a b"]) {
      const res = await post({ tag: "bad-url", maxConcurrent: 1, notifyUrl });
      expect(res.status, notifyUrl).toBe(400);
      expect(res.json()).toEqual({ _tag: "BadRequest", message: URL_MESSAGE });
    }
    const retryFirst = await post({ tag: "bad-url", retryStrategy: "fixed", notifyUrl: "nope" });
    expect(retryFirst.json().message).toMatch(/^retryInitialDelaySeconds is required/);
    const { id } = (await post({ tag: "url-put", maxConcurrent: 1 })).json().tagPolicy;
    expect((await put(id, { notifyUrl: "nope" })).json()).toEqual({ _tag: "BadRequest", message: URL_MESSAGE });
    const rows = await api.db.$queryRawUnsafe<Array<{ n: number }>>("SELECT count(*)::int AS n FROM tag_policies WHERE tag = 'bad-url' OR notify_url = 'nope'");
    expect(rows[0]!.n).toBe(0);
  });
});
