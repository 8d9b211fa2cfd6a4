// Timed HTTP calls for the bench's read and operation timings: a dashboard
// session (a user made in the database, as `ttr user create` does, signed in
// through POST /auth/login as the dashboard's sign-in page does, then GETs
// carrying the `ttr_session` cookie) and API-key calls. Each call is timed
// from sending the request to the last byte of the body, on a kept-alive
// connection (Node's fetch).
import { randomBytes } from "node:crypto";
import { createDb, createUser } from "@ttr/db";
import { percentile } from "./stats.mjs";

/**
 * @typedef {object} Timed
 * @property {number} ms
 * @property {number} status
 * @property {string} text
 */

/**
 * One request, timed.
 * @param {string} url
 * @param {{method?: string, headers?: Record<string, string>, body?: string}} [init]
 * @returns {Promise<Timed>}
 */
export async function timed(url, init = {}) {
  const started = performance.now();
  const res = await fetch(url, init);
  const text = await res.text();
  return { ms: performance.now() - started, status: res.status, text };
}

/**
 * `n` sequential calls after one unmeasured warm-up call (connection, plan
 * caches); any status but `expect` fails the bench.
 * @param {string} what  for the error message
 * @param {number} n
 * @param {(i: number) => Promise<Timed>} call  i = -1 for the warm-up
 * @returns {Promise<{p50: number, p99: number, max: number}>}
 */
export async function repeat(what, n, call, expect = 200) {
  const check = (r) => {
    if (r.status !== expect) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
    return r;
  };
  check(await call(-1));
  const ms = [];
  for (let i = 0; i < n; i++) ms.push(check(await call(i)).ms);
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms[ms.length - 1] };
}

/**
 * A dashboard user of `projectId`, signed in on the api at `base`.
 * @param {string} base
 * @param {string} databaseUrl
 * @param {string} projectId
 * @returns {Promise<{cookie: string, get: (path: string) => Promise<Timed>}>}
 */
export async function dashboardSession(base, databaseUrl, projectId) {
  const email = `bench-${randomBytes(4).toString("hex")}@example.com`;
  const password = randomBytes(12).toString("base64url");
  const db = createDb(databaseUrl, { max: 1, applicationName: "ttr-bench" });
  try {
    await createUser(db, projectId, email, password);
  } finally {
    await db.$disconnect();
  }
  const res = await fetch(`${base}/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /auth/login: ${res.status} ${text.slice(0, 300)}`);
  const cookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith("ttr_session="))
    ?.split(";")[0];
  if (!cookie) throw new Error("POST /auth/login set no ttr_session cookie");
  return { cookie, get: (path) => timed(`${base}${path}`, { headers: { cookie, accept: "application/json" } }) };
}
