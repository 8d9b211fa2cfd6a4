// /tag-policies credentials (docs/api/README.md): ttr-api-key, Bearer and a dashboard
// session; policies are the project's own; other methods and paths are 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "@ttr/db";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { otherProject, signIn, type TestSession } from "../../../test/support/session.js";

let api: TestApi;
let session: TestSession;
beforeAll(async () => {
  api = await startApi();
  session = await signIn(api);
});
afterAll(() => api.close());

const json = { "Content-Type": "application/json" };

/** A full round of the endpoint with the given credentials. */
async function roundTrip(credentials: Record<string, string>, tag: string): Promise<void> {
  const created = await api.call("POST", "/tag-policies", { ...credentials, ...json }, JSON.stringify({ tag, maxConcurrent: 1 }));
  expect(created.status, created.text).toBe(200);
  const { id, projectId } = created.json().tagPolicy;
  expect(projectId).toBe(api.projectId);
  const listed = await api.call("GET", "/tag-policies", credentials);
  expect(listed.status).toBe(200);
  expect(listed.json().tagPolicies.map((p: { id: string }) => p.id)).toContain(id);
  const updated = await api.call("PUT", `/tag-policies/${id}`, { ...credentials, ...json }, JSON.stringify({ maxConcurrent: 2 }));
  expect(updated.status).toBe(200);
  expect(updated.json().tagPolicy.maxConcurrent).toBe(2);
  const deleted = await api.call("DELETE", `/tag-policies/${id}`, credentials);
  expect(deleted.status).toBe(200);
  expect(deleted.json()).toEqual({ ok: true });
}

describe("credentials", () => {
  it("ttr-api-key", async () => {
    await roundTrip({ "ttr-api-key": api.apiKey }, "by-key");
  });

  it("Authorization: Bearer, in any letter case", async () => {
    await roundTrip({ Authorization: `Bearer ${api.apiKey}` }, "by-bearer");
    await roundTrip({ Authorization: `bearer ${api.apiKey}` }, "by-bearer-lower");
  });

  it("any key of the project", async () => {
    const second = await createApiKey(api.db, api.projectId);
    await roundTrip({ "ttr-api-key": second.apiKey }, "by-second-key");
  });

  it("a dashboard session", async () => {
    await roundTrip({ Cookie: session.cookie }, "by-session");
  });

  it("ttr-api-key is the one checked when Bearer is sent too", async () => {
    const res = await api.call("GET", "/tag-policies", { "ttr-api-key": "ttr_wrong", Authorization: `Bearer ${api.apiKey}` });
    expect(res.status).toBe(401);
    expect(res.json()).toEqual({ _tag: "Unauthorized", message: "Invalid api key" });
    expect((await api.call("GET", "/tag-policies", { "ttr-api-key": api.apiKey, Authorization: "Bearer ttr_wrong" })).status).toBe(200);
  });

  it("an unknown key is refused even with a live session", async () => {
    const res = await api.call("GET", "/tag-policies", { "ttr-api-key": "ttr_wrong", Cookie: session.cookie });
    expect(res.json()).toEqual({ _tag: "Unauthorized", message: "Invalid api key" });
  });

  it("a signed-out session is Unauthorized", async () => {
    const gone = await signIn(api);
    expect((await gone.call("POST", "/auth/logout")).status).toBe(204);
    const res = await gone.call("GET", "/tag-policies");
    expect(res.status).toBe(401);
    expect(res.json()).toEqual({ _tag: "Unauthorized", message: "Unauthorized" });
  });

  it("a session's writes from another site are refused (and write nothing)", async () => {
    const res = await session.call("POST", "/tag-policies", { Origin: "https://evil.example" }, { tag: "csrf", maxConcurrent: 1 });
    expect(res.status).toBe(403);
    const rows = await api.db.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM tag_policies WHERE tag = 'csrf'`);
    expect(rows).toHaveLength(0);
  });
});

describe("projects are isolated", () => {
  it("a policy is visible and changeable only in its project; tags are per project", async () => {
    const other = await otherProject(api, "isolated");
    const mine = (await api.call("POST", "/tag-policies", { "ttr-api-key": api.apiKey, ...json }, JSON.stringify({ tag: "shared", maxConcurrent: 1 }))).json().tagPolicy;
    const theirs = (await api.call("POST", "/tag-policies", { Authorization: `Bearer ${other.apiKey}`, ...json }, JSON.stringify({ tag: "shared", maxConcurrent: 7 }))).json().tagPolicy;
    expect(theirs.id).not.toBe(mine.id);
    expect(theirs.projectId).toBe(other.projectId);

    for (const credentials of [{ "ttr-api-key": other.apiKey }, { Cookie: other.session.cookie }]) {
      const listed = (await api.call("GET", "/tag-policies", credentials)).json().tagPolicies;
      expect(listed.map((p: { id: string }) => p.id)).toEqual([theirs.id]);
      const put = await api.call("PUT", `/tag-policies/${mine.id}`, { ...credentials, ...json }, JSON.stringify({ maxConcurrent: 99 }));
      expect(put.status).toBe(404);
      expect(put.json()).toEqual({ _tag: "NotFound", message: "Tag policy not found" });
      const del = await api.call("DELETE", `/tag-policies/${mine.id}`, credentials);
      expect(del.status).toBe(404);
    }
    const mineNow = (await api.call("GET", "/tag-policies", { "ttr-api-key": api.apiKey })).json().tagPolicies;
    expect(mineNow.find((p: { id: string }) => p.id === mine.id)).toEqual(mine);
    expect(mineNow.some((p: { id: string }) => p.id === theirs.id)).toBe(false);
  });

  it("a new project has an empty list", async () => {
    const other = await otherProject(api, "empty");
    const res = await api.call("GET", "/tag-policies", { "ttr-api-key": other.apiKey });
    expect(res.json()).toEqual({ tagPolicies: [] });
  });
});

describe("other methods and paths: 404 with no body", () => {
  const id = "00000000-0000-4000-8000-000000000000";
  it.each([
    ["PATCH", "/tag-policies"],
    ["PUT", "/tag-policies"],
    ["DELETE", "/tag-policies"],
    ["OPTIONS", "/tag-policies"],
    ["GET", `/tag-policies/${id}`],
    ["POST", `/tag-policies/${id}`],
    ["PATCH", `/tag-policies/${id}`],
    ["OPTIONS", `/tag-policies/${id}`],
    ["GET", `/tag-policies/${id}/extra`],
    ["DELETE", `/tag-policies/${id}/extra`],
    ["GET", "/tag-policies-x"],
    ["GET", "/tag-policy"],
  ])("%s %s", async (method, path) => {
    const res = await api.call(method, path, { "ttr-api-key": api.apiKey, ...json }, method === "GET" || method === "OPTIONS" ? undefined : "{}");
    expect(res.status).toBe(404);
    expect(res.body.length).toBe(0);
  });
});
