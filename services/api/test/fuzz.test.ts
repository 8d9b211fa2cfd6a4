// Hostile and random requests against every endpoint of the api (real
// PostgreSQL and Redis): random methods, paths, query strings, headers
// (keys, sessions, content types, the ttr- headers), bodies (JSON near and
// far from each endpoint's shape, raw bytes, deep nesting, oversize) and
// orders. Whatever arrives:
// - the answer is never a 5xx, and comes within 5 s;
// - a refused request (4xx) has written nothing: no trigger, recurring
//   trigger, attempt, policy, key, user or session row more than before;
// - the api writes nothing to Redis but its sign-in throttle counts.
// TTR_FUZZ_RUNS sets the number of requests (3,000 by default, about 7 s;
// 10,000 took 21 s).
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { redisUrl } from "../../../test/support/db.js";
import type { Reply } from "../../../test/support/http.js";
import { signIn, type TestSession } from "../../../test/support/session.js";

const RUNS = Number(process.env.TTR_FUZZ_RUNS ?? 3000);
const DEADLINE_MS = 5000;

let api: TestApi;
let session: TestSession;
/** what a "valid" cookie is for /auth/logout: this one is given up, the main one stays signed in */
let spare: TestSession;
let redis: Redis;
let triggerId: string;
let policyId: string;

beforeAll(async () => {
  api = await startApi({ quota: 10_000_000 });
  session = await signIn(api);
  spare = await signIn(api);
  redis = new Redis(redisUrl());
  const scheduled = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://example.com/x", "ttr-scheduled-at": "2099-01-01T00:00:00Z" });
  triggerId = scheduled.json<{ triggerId: string }>().triggerId;
  const policy = await api.call("POST", "/tag-policies", { "ttr-api-key": api.apiKey, "Content-Type": "application/json" }, JSON.stringify({ tag: "fuzz" }));
  policyId = policy.json<{ id: string }>().id;
}, 60_000);
afterAll(async () => {
  await redis?.quit();
  await api?.close();
});

/** Printable ASCII: what an HTTP client lets into a header value. */
const headerText = (max: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max });
const junk = fc.oneof(headerText(40), fc.constantFrom("", " ", "null", "undefined", "%00", "../../etc/passwd", "' OR 1=1 --", "${jndi:x}", "<script>", "x".repeat(5000)));
const uuidLike = fc.oneof(fc.uuid(), junk);

const dates = fc.oneof(
  fc.constantFrom("now", "now | add 1h", "now | subtract 1d", "2099-01-01T00:00:00Z", "2020-01-01", "0", "-1", "1e309", "2099-13-45T25:61:61Z", "now | add 99999999999y", "now | | add"),
  fc.date({ min: new Date("1900-01-01"), max: new Date("2300-01-01"), noInvalidDate: true }).map((d) => d.toISOString()),
  junk,
);
const urls = fc.oneof(
  fc.constantFrom("http://example.com/a", "https://example.com/a?b=c", "http://127.0.0.1:1/", "file:///etc/passwd", "ftp://x", "http://", "//x", "http://[::1]/", "http://user:pw@example.com/"),
  fc.webUrl(),
  junk,
);
const crons = fc.oneof(fc.constantFrom("* * * * *", "0 0 * * *", "*/0 * * * *", "61 * * * *", "* * * * * *", "@daily", ""), junk);

/** An item for /declare or /bulk: near the shape, or not. */
const item = fc.oneof(
  fc.record(
    {
      url: fc.oneof(urls, fc.constant(null)),
      customKey: fc.oneof(junk, fc.constant(null)),
      scheduledAt: dates,
      cron: crons,
      tz: fc.oneof(fc.constantFrom("UTC", "Europe/Paris", "Mars/Olympus"), junk),
      method: fc.constantFrom("GET", "POST", "DELETE", "BREW", ""),
      headers: fc.oneof(fc.dictionary(headerText(8), headerText(8), { maxKeys: 3 }), fc.jsonValue()),
      body: fc.jsonValue(),
      title: fc.oneof(junk, fc.constant("t".repeat(300))),
      tags: fc.oneof(fc.array(junk, { maxLength: 3 }), fc.jsonValue()),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);
const jsonBodies = fc.oneof(
  fc.record({ tag: fc.oneof(junk, fc.constant("fuzz")), items: fc.oneof(fc.array(item, { maxLength: 4 }), fc.jsonValue()), runMissed: fc.jsonValue() }, { requiredKeys: [] }),
  fc.record({ upserts: fc.oneof(fc.array(item, { maxLength: 4 }), fc.jsonValue()), cancels: fc.array(fc.oneof(junk, fc.record({ id: uuidLike, customKey: junk, tag: junk }, { requiredKeys: [] })), { maxLength: 3 }) }, { requiredKeys: [] }),
  fc.record({ email: fc.oneof(fc.emailAddress(), junk), password: junk }, { requiredKeys: [] }),
  fc.record(
    {
      url: fc.oneof(urls, fc.jsonValue()),
      scheduledAt: fc.oneof(dates, crons.map((c) => `cron(${c})`), fc.jsonValue()),
      method: fc.constantFrom("GET", "POST", "delete", "BREW", "GE T", "", "\r\n"),
      headers: fc.oneof(fc.dictionary(headerText(8), headerText(8), { maxKeys: 3 }), fc.jsonValue()),
      body: fc.oneof(junk, fc.jsonValue()),
      customKey: fc.oneof(junk, fc.constant(null)),
      tags: fc.oneof(fc.array(junk, { maxLength: 3 }), fc.jsonValue()),
      title: fc.oneof(junk, fc.constant(null)),
      runMissed: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
  fc.record({ tag: junk, throughput: fc.jsonValue(), concurrency: fc.jsonValue(), timeoutSeconds: fc.jsonValue(), retry: fc.jsonValue() }, { requiredKeys: [] }),
  fc.jsonValue(),
).map((v) => JSON.stringify(v) ?? "null");
const bodies = fc.oneof(
  { weight: 6, arbitrary: jsonBodies },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString("latin1")) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)) },
  { weight: 1, arbitrary: fc.constantFrom('{"a":', "{}", "[]", '"x"', "\uFEFF{}", '{"tag":"t","items":[]}{"x":1}', "x".repeat(1024 * 1024 + 10)) },
);

/** Every route with its method, so most requests reach a handler, not only the router. */
const ROUTES: Array<[string, string]> = [
  ["POST", "/schedule"], ["GET", "/schedule"], ["DELETE", "/cancel"], ["POST", "/declare"], ["POST", "/bulk"],
  ["GET", "/tag-policies"], ["POST", "/tag-policies"], ["GET", "/tag-policies/:policy"], ["PUT", "/tag-policies/:policy"],
  ["PATCH", "/tag-policies/:policy"], ["DELETE", "/tag-policies/:policy"], ["DELETE", "/tag-policies/:uuid"],
  ["POST", "/auth/login"], ["POST", "/auth/logout"], ["GET", "/project"], ["GET", "/triggers"], ["GET", "/triggers/:trigger"],
  ["GET", "/triggers/:uuid"], ["POST", "/triggers"], ["PUT", "/triggers/:trigger"], ["PUT", "/triggers/:uuid"],
  ["DELETE", "/triggers/:uuid"], ["POST", "/triggers/:trigger/replay"], ["POST", "/triggers/:trigger/retry"], ["GET", "/executions"],
  ["GET", "/stats"], ["GET", "/overview"], ["GET", "/dashboard"], ["GET", "/dashboard/deep/link"], ["GET", "/healthz"], ["GET", "/readyz"], ["GET", "/metrics"],
  ["POST", "/dead-letters/replay"], ["POST", "/dead-letters/discard"], ["GET", "/openapi.json"], ["GET", "/reference"],
];
const methods = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD");
const paths = fc.oneof(fc.constantFrom(...ROUTES.map(([, p]) => p)), headerText(30).map((p) => `/${encodeURI(p).replace(/^\/+/, "")}`));
const routes = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ROUTES).map(([method, path]) => ({ method, path })) },
  { weight: 1, arbitrary: fc.record({ method: methods, path: paths }) },
);
const queries = fc.oneof(
  fc.constant(""),
  fc.record({ k: fc.constantFrom("limit", "cursor", "minutes", "tag", "status", "deadLetter", "from", "to", "q", "limit[]"), v: junk }).map(({ k, v }) => `?${k}=${encodeURIComponent(v)}`),
  headerText(20).map((q) => `?${encodeURI(q)}`),
);

const credential = fc.oneof({ weight: 2, arbitrary: fc.constant("valid") }, { weight: 1, arbitrary: fc.constant("none") }, { weight: 1, arbitrary: junk });
const requests = fc.record({
  route: routes,
  query: queries,
  key: credential,
  bearer: fc.oneof({ weight: 3, arbitrary: fc.constant("none") }, { weight: 1, arbitrary: credential }),
  cookie: credential,
  contentType: fc.oneof(fc.constant("none"), fc.constantFrom("application/json", "APPLICATION/JSON; charset=utf-8", "text/plain", "multipart/form-data", "application/x-www-form-urlencoded"), junk),
  origin: fc.oneof(fc.constant("none"), fc.constantFrom("https://evil.example", "null"), junk),
  ttr: fc.record(
    {
      "ttr-url": urls,
      "ttr-scheduled-at": dates,
      "ttr-cron": crons,
      "ttr-tz": junk,
      "ttr-custom-key": junk,
      "ttr-trigger-id": fc.oneof(fc.constant(":trigger"), uuidLike),
      "ttr-method": fc.constantFrom("GET", "POST", "PUT", "BREW", ""),
      "ttr-title": junk,
      "ttr-tags": junk,
      "ttr-timeout": junk,
      "x-random": junk,
    },
    { requiredKeys: [] },
  ),
  body: bodies,
});
type Fuzzed = typeof requests extends fc.Arbitrary<infer T> ? T : never;

function resolve(text: string): string {
  return text.replaceAll(":trigger", triggerId).replaceAll(":policy", policyId).replaceAll(":uuid", "00000000-0000-7000-8000-000000000000");
}

function headersOf(r: Fuzzed): Record<string, string> {
  const h: Record<string, string> = {};
  const pick = (v: string, valid: string) => (v === "valid" ? valid : v);
  if (r.key !== "none") h["ttr-api-key"] = pick(r.key, api.apiKey);
  if (r.bearer !== "none") h.Authorization = `Bearer ${pick(r.bearer, api.apiKey)}`;
  if (r.cookie !== "none") h.Cookie = pick(r.cookie, r.route.path === "/auth/logout" ? spare.cookie : session.cookie);
  if (r.contentType !== "none") h["Content-Type"] = r.contentType;
  if (r.origin !== "none") h.Origin = r.origin;
  for (const [k, v] of Object.entries(r.ttr)) if (v !== undefined) h[k] = resolve(v);
  return h;
}

const ROWS = `SELECT (SELECT count(*) FROM triggers)::int AS triggers, (SELECT count(*) FROM generators)::int AS generators,
  (SELECT count(*) FROM executions)::int AS executions, (SELECT count(*) FROM tag_policies)::int AS policies,
  (SELECT count(*) FROM api_keys)::int AS keys, (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM sessions)::int AS sessions`;
const rows = async () => (await api.db.$queryRawUnsafe<Array<Record<string, number>>>(ROWS))[0];

async function send(r: Fuzzed): Promise<Reply | "timeout"> {
  const timeout = new Promise<"timeout">((res) => setTimeout(() => res("timeout"), DEADLINE_MS).unref());
  const { method, path } = r.route;
  const reply = api.call(method, resolve(path) + r.query, headersOf(r), method === "GET" || method === "HEAD" ? undefined : r.body);
  return Promise.race([reply, timeout]);
}

it(`${RUNS} hostile requests: never a 5xx, never over 5 s, and a refused request writes nothing`, async () => {
  const statuses = new Map<number, number>();
  /** per route of ROUTES, the statuses it answered */
  const byRoute = new Map<string, Set<number>>();
  await fc.assert(
    fc.asyncProperty(requests, async (r) => {
      const before = await rows();
      const reply = await send(r);
      const what = `${r.route.method} ${resolve(r.route.path)}${r.query}`;
      expect(reply, `${what} did not answer within ${DEADLINE_MS} ms`).not.toBe("timeout");
      const { status } = reply as Reply;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const route = `${r.route.method} ${r.route.path}`;
      if (ROUTES.some(([m, p]) => `${m} ${p}` === route)) byRoute.set(route, (byRoute.get(route) ?? new Set()).add(status));
      expect(status, `${what} answered ${status}: ${(reply as Reply).text.slice(0, 300)}`).toBeLessThan(500);
      if (status >= 400) expect(await rows(), `${what} was refused (${status}) but wrote rows`).toEqual(before);
    }),
    { numRuns: RUNS },
  );
  // It reached the endpoints, not only their doors: every route answered
  // something besides the refusals of authentication, at least once.
  expect(statuses.get(200) ?? 0).toBeGreaterThan(RUNS / 50);
  expect(statuses.get(400) ?? 0).toBeGreaterThan(RUNS / 50);
  for (const [method, path] of ROUTES) {
    const seen = [...(byRoute.get(`${method} ${path}`) ?? [])];
    expect(seen.filter((st) => st !== 401 && st !== 403 && st !== 429), `${method} ${path} answered only ${seen.join(", ")}`).not.toEqual([]);
  }

  // The api's only Redis keys are its sign-in throttle counts.
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${api.redisPrefix}:*`, "COUNT", 1000);
    keys.push(...found);
    cursor = next;
  } while (cursor !== "0");
  expect(keys.filter((k) => !k.startsWith(`${api.redisPrefix}:login:`))).toEqual([]);
}, 300_000);
