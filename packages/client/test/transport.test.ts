// Answers that are not the api's own, from something between the client and
// ttr (a proxy, a load balancer, a dropped connection), played by real HTTP
// servers on 127.0.0.1: each rejects with a TtrError, none with a plain JS
// error, and none is taken for the call's answer.
import { createClient, TtrError } from "@ttr/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTarget, type Target } from "../../../test/support/target.js";

/** The error `promise` rejects with, which must be a TtrError. */
async function refusal(promise: Promise<unknown>): Promise<TtrError> {
  const err = await promise.then(
    () => "resolved",
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TtrError);
  return err as TtrError;
}

const fields = (err: TtrError) => ({ _tag: err._tag, status: err.status, message: err.message });

let proxy: Target;
let elsewhere: Target;
beforeAll(async () => {
  [proxy, elsewhere] = await Promise.all([startTarget(), startTarget()]);
  // what another origin would answer, were the client to follow a redirect there
  const scheduled = { triggerId: "t", scheduledAt: "2030-01-01T00:00:00.000Z", operation: "schedule", kind: "job", monthQuotaRemaining: 1 };
  elsewhere.on("/schedule", (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(scheduled)));
  elsewhere.on("/tag-policies", (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"tagPolicies":[]}'));
});
afterAll(async () => {
  await Promise.all([proxy?.close(), elsewhere?.close()]);
});

describe("a redirect is not followed", () => {
  it("301, 302, 303, 307, 308: HttpError with the status and Location; nothing, the key least of all, reaches the other origin", async () => {
    const ttr = createClient({ baseUrl: proxy.base, apiKey: "ttr_secret" });
    const before = proxy.received.length;
    for (const status of [301, 302, 303, 307, 308]) {
      for (const path of ["/schedule", "/tag-policies"]) proxy.on(path, (req, res) => res.writeHead(status, { location: `${elsewhere.base}${req.url}` }).end());
      const schedule = await refusal(ttr.schedule({ url: "http://127.0.0.1:9/hook", scheduledAt: "now | add 1h", json: { order: 1 } }));
      expect(fields(schedule)).toEqual({
        _tag: "HttpError",
        status,
        message: `POST ${proxy.base}/schedule answered a redirect (${status}) to ${elsewhere.base}/schedule; the client follows no redirects: set baseUrl to where the api answers`,
      });
      const policy = await refusal(ttr.putTagPolicy({ tag: "emails", maxConcurrent: 2 }));
      expect(fields(policy)).toMatchObject({ _tag: "HttpError", status, message: expect.stringContaining(` to ${elsewhere.base}/tag-policies;`) });
    }
    expect(proxy.received.slice(before).map((r) => r.method)).toEqual(Array(10).fill("POST"));
    expect(elsewhere.received.map((r) => `${r.method} ${r.url} key=${r.headers["ttr-api-key"]}`)).toEqual([]);
  });
});

describe("an answer that is not the api's JSON", () => {
  it("a 2xx whose body is not JSON (a proxy's page, an empty body): HttpError with its status", async () => {
    proxy.on("/project", (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Welcome to nginx!</body></html>"));
    proxy.on("/triggers", (_req, res) => res.writeHead(200).end());
    const ttr = createClient({ baseUrl: proxy.base, apiKey: "ttr_k" });
    expect(fields(await refusal(ttr.getProject()))).toEqual({
      _tag: "HttpError",
      status: 200,
      message: `GET ${proxy.base}/project answered 200 with a body that is not JSON (text/html): <html><body>Welcome to nginx!</body></html>`,
    });
    expect(fields(await refusal(ttr.listTriggers({ limit: 5 })))).toEqual({
      _tag: "HttpError",
      status: 200,
      message: `GET ${proxy.base}/triggers?limit=5 answered 200 with a body that is not JSON: empty`,
    });
  });

  it("readiness(): a 503 that is a proxy's HTML page is Unavailable, as on any other method; the api's own 503 is returned", async () => {
    const ttr = createClient({ baseUrl: proxy.base });
    proxy.on("/readyz", (_req, res) => res.writeHead(503, { "content-type": "text/html", "retry-after": "7" }).end("<h1>503 Service Unavailable</h1>\n"));
    const err = await refusal(ttr.readiness());
    expect({ ...fields(err), retryAfter: err.retryAfter }).toEqual({ _tag: "Unavailable", status: 503, message: "<h1>503 Service Unavailable</h1>", retryAfter: 7 });
    proxy.on("/readyz", (_req, res) => res.writeHead(503, { "content-type": "application/json" }).end('{"status":"unavailable","down":["redis"]}'));
    expect(await ttr.readiness()).toEqual({ status: "unavailable", down: ["redis"] });
  });

  it("a connection that drops after the status line and headers: Transport, for JSON, text and login answers", async () => {
    const cutShort = (type: string) => (_req: unknown, res: import("node:http").ServerResponse) => {
      res.writeHead(200, { "content-type": type, "content-length": "1000" });
      res.write(type === "application/json" ? '{"project":{"id":' : "# HELP ");
      setTimeout(() => res.destroy(), 20);
    };
    proxy.on("/project", cutShort("application/json"));
    proxy.on("/metrics", cutShort("text/plain"));
    proxy.on("/auth/login", cutShort("application/json"));
    const ttr = createClient({ baseUrl: proxy.base, apiKey: "ttr_k" });
    const calls = [
      ["GET", "/project", () => ttr.getProject()],
      ["GET", "/metrics", () => ttr.metrics()],
      ["POST", "/auth/login", () => ttr.login({ email: "a@example.com", password: "p" })],
    ] as const;
    for (const [method, path, call] of calls) {
      const err = await refusal(call());
      expect(fields(err)).toEqual({ _tag: "Transport", status: 0, message: expect.stringMatching(new RegExp(`^${method} ${proxy.base}${path} lost its answer's body: `)) });
      expect(err.cause).toBeInstanceOf(Error);
    }
  });
});
