// Dashboard sign-in, sessions and their protections (docs/api/dashboard-api.md).
import { randomBytes, scryptSync } from "node:crypto";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "@ttr/api/app";
import { createServer } from "@ttr/api/server";
import { sha256Hex } from "@ttr/core";
import { createUser } from "@ttr/db";
import { createLogger, createRedis, createRegistry, freePort } from "@ttr/platform";
import type { Redis } from "ioredis";
import { LOGIN_LIMITS, LoginThrottle, type ThrottleLimits } from "../src/auth/login-limit.js";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { redisPrefix, redisUrl } from "../../../test/support/db.js";
import { request } from "../../../test/support/http.js";
import { login, sessionCookieOf, signIn } from "../../../test/support/session.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const UNAUTHORIZED = { _tag: "Unauthorized", message: "Unauthorized" };

async function sessionRow(cookie: string) {
  const token = cookie.slice("ttr_session=".length);
  const rows = await api.db.$queryRawUnsafe<Array<{ id: string; createdAt: Date; lastSeenAt: Date; expiresAt: Date }>>(
    `SELECT id::text, created_at AS "createdAt", last_seen_at AS "lastSeenAt", expires_at AS "expiresAt" FROM sessions WHERE token_hash = $1`,
    sha256Hex(token),
  );
  return rows[0];
}

describe("POST /auth/login", () => {
  it("200 with the user and project, and an HttpOnly SameSite=Strict cookie (not Secure over plain HTTP)", async () => {
    const { userId } = await createUser(api.db, api.projectId, "Ada@Example.com", "s3cret-pass");
    const res = await login(api, "ADA@example.COM", "s3cret-pass");
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ user: { id: userId, email: "ada@example.com" }, project: { id: api.projectId, name: "test" } });
    const set = res.headers["set-cookie"]!.find((c) => c.startsWith("ttr_session="))!;
    expect(set).toMatch(/^ttr_session=[A-Za-z0-9_-]{43};/);
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Strict/);
    expect(set).toMatch(/; Path=\//);
    expect(set).toMatch(/; Max-Age=604800/);
    expect(set).not.toMatch(/Secure/);
  });

  it("stores only a SHA-256 of the token, and the session expires 12 h after sign-in", async () => {
    const s = await signIn(api);
    const token = s.cookie.slice("ttr_session=".length);
    const row = await sessionRow(s.cookie);
    expect(row).toBeDefined();
    const dump = await api.db.$queryRawUnsafe<Array<{ t: string }>>(`SELECT string_agg(s::text, ',') AS t FROM sessions s`);
    expect(dump[0]!.t).not.toContain(token);
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBe(12 * 3600_000);
  });

  it("a password stored with older scrypt settings still signs in, and is then stored with today's", async () => {
    const { userId } = await createUser(api.db, api.projectId, "old-hash@example.com", "placeholder");
    const salt = randomBytes(16);
    const old = ["scrypt", 16384, 8, 1, salt.toString("base64url"), scryptSync("old-password", salt, 32, { N: 16384, r: 8, p: 1 }).toString("base64url")].join("$");
    await api.db.$executeRawUnsafe("UPDATE users SET password_hash = $2 WHERE id = $1::uuid", userId, old);
    expect((await login(api, "old-hash@example.com", "old-password")).status).toBe(200);
    const [{ hash } = { hash: "" }] = await api.db.$queryRawUnsafe<Array<{ hash: string }>>("SELECT password_hash AS hash FROM users WHERE id = $1::uuid", userId);
    expect(hash).not.toBe(old);
    expect(hash).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect((await login(api, "old-hash@example.com", "old-password")).status).toBe(200);
    expect((await login(api, "old-hash@example.com", "wrong")).status).toBe(401);
  });

  it("401 Invalid credentials for a wrong password or an unknown email, with no cookie", async () => {
    await createUser(api.db, api.projectId, "bob@example.com", "right-password");
    const cases = [
      ["bob@example.com", "wrong-password"],
      ["nobody@example.com", "right-password"],
      ["bob@example.com\u0000", "right-password"],
      // longer than any user's (the CLI sets none longer): wrong, not malformed
      ["bob@example.com", "p".repeat(1025)],
      [`${"b".repeat(310)}@example.com`, "right-password"],
    ];
    for (const [email, password] of cases) {
      const res = await login(api, email!, password!);
      expect(res.status).toBe(401);
      expect(res.json()).toEqual({ _tag: "Unauthorized", message: "Invalid credentials" });
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
  });

  it("400 with a JSON error for a malformed body", async () => {
    const bodies: Array<[Record<string, string>, string]> = [
      [{ "Content-Type": "application/json" }, "{not json"],
      [{ "Content-Type": "application/json" }, JSON.stringify({ email: "a@b.c" })],
      [{ "Content-Type": "application/json" }, JSON.stringify({ email: 1, password: "x" })],
      [{ "Content-Type": "application/json" }, JSON.stringify({ email: "", password: "x" })],
      [{ "Content-Type": "application/json" }, "[]"],
      [{ "Content-Type": "text/plain" }, JSON.stringify({ email: "a@b.c", password: "x" })],
      [{}, ""],
    ];
    for (const [headers, body] of bodies) {
      const res = await api.call("POST", "/auth/login", headers, body);
      expect(res.status, body).toBe(400);
      expect(res.json(), body).toEqual({ _tag: "BadRequest", message: 'Sign in with a JSON body {"email", "password"}, both non-empty strings' });
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
  });
});

describe("TTR_COOKIE_SECURE", () => {
  /** The session cookie of a sign-in to an api built with `cookieSecure`, over plain HTTP or, as a proxy says, HTTPS. */
  async function cookieWith(cookieSecure: boolean | undefined, proto: "http" | "https", email: string): Promise<string> {
    const redis = createRedis(redisUrl(), "ttr-test", createLogger("test", "error"));
    const app = createApp({ db: api.db, reads: api.reads, pg: api.pg, redis, log: createLogger("api", "error"), registry: createRegistry("api"), cookieSecure });
    app.set("trust proxy", "loopback");
    const server = createServer(app);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await createUser(api.db, api.projectId, email, "pw-cookie");
      const body = JSON.stringify({ email, password: "pw-cookie" });
      const res = await request(base, "POST", "/auth/login", { "Content-Type": "application/json", "X-Forwarded-Proto": proto }, body);
      expect(res.status).toBe(200);
      return res.headers["set-cookie"]!.find((c) => c.startsWith("ttr_session="))!;
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await redis.quit();
    }
  }

  it("true: Secure even when the api sees plain HTTP (TLS ended before it, proxy not trusted)", async () => {
    expect(await cookieWith(true, "http", "secure-true@example.com")).toMatch(/; Secure/);
  });

  it("false: never Secure, even over HTTPS", async () => {
    expect(await cookieWith(false, "https", "secure-false@example.com")).not.toMatch(/Secure/);
  });

  it("unset: as the request came (behind a TLS-ending proxy, express reports it from X-Forwarded-Proto once it trusts the proxy)", async () => {
    expect(await cookieWith(undefined, "http", "secure-unset-http@example.com")).not.toMatch(/Secure/);
    expect(await cookieWith(undefined, "https", "secure-unset-https@example.com")).toMatch(/; Secure/);
  });
});

describe("sign-in rate limit", () => {
  it("after 10 failed attempts for an email from one address, even the right password gets 429 until the window ends", async () => {
    await createUser(api.db, api.projectId, "limited@example.com", "the-password");
    for (let i = 0; i < 10; i++) expect((await login(api, "limited@example.com", `guess-${i}`)).status).toBe(401);
    const res = await login(api, "Limited@example.com", "the-password");
    expect(res.status).toBe(429);
    expect(res.json()._tag).toBe("TooManyRequests");
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(800);
    // Other emails are not affected.
    expect((await signIn(api)).cookie).toMatch(/^ttr_session=/);
  });

  it("a success clears the count", async () => {
    await createUser(api.db, api.projectId, "forgetful@example.com", "pw");
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 9; i++) expect((await login(api, "forgetful@example.com", "nope")).status).toBe(401);
      expect((await login(api, "forgetful@example.com", "pw")).status).toBe(200);
    }
  });

  /** A throttle of its own (fresh key prefix) with a clock the test moves. */
  function throttle(limits: Partial<ThrottleLimits> = {}) {
    const clock = { now: 1_000_000 };
    const redis = createRedis(redisUrl(), "ttr-test", createLogger("test", "error"));
    redises.push(redis);
    const t = new LoginThrottle(redis, redisPrefix(), { ...LOGIN_LIMITS, ...limits }, () => clock.now);
    return { t, clock };
  }
  const redises: Redis[] = [];
  afterAll(async () => {
    for (const r of redises) await r.quit();
  });

  it("throttle, per email from many addresses: after 10 failures each attempt waits 1 s, 2 s, 4 s … after the last, at most 15 minutes", async () => {
    const { t, clock } = throttle();
    for (let i = 0; i < 10; i++) expect(await t.attempt("owner@example.com", `10.0.0.${i}`)).toBe(0);
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      const wait = await t.attempt("owner@example.com", `10.0.1.${i}`);
      waits.push(wait);
      clock.now += wait * 1000 - 1;
      expect(await t.attempt("owner@example.com", `10.0.2.${i}`)).toBe(1);
      clock.now += 1;
      expect(await t.attempt("owner@example.com", `10.0.3.${i}`)).toBe(0);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
    // another email is not slowed by it
    expect(await t.attempt("other@example.com", "10.0.0.1")).toBe(0);
  });

  it("throttle, per address across emails: 100 attempts, then refused until the window ends", async () => {
    // Sent together (one pipeline), so a busy machine does not spend the window on them one by one.
    const { t } = throttle({ windowMs: 3000 });
    const first = await Promise.all(Array.from({ length: 100 }, (_, i) => t.attempt(`spray-${i}@example.com`, "192.0.2.7")));
    expect(first.every((wait) => wait === 0)).toBe(true);
    const wait = await t.attempt("spray-x@example.com", "192.0.2.7");
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(3);
    expect(await t.attempt("spray-x@example.com", "192.0.2.8")).toBe(0);
    await new Promise((r) => setTimeout(r, 3100));
    expect(await t.attempt("spray-y@example.com", "192.0.2.7")).toBe(0);
  });

  it("throttle: a success clears the email's counts and gives the address its attempt back", async () => {
    const { t } = throttle({ addressMax: 3 });
    for (let i = 0; i < 3; i++) expect(await t.attempt("me@example.com", "198.51.100.1")).toBe(0);
    expect(await t.attempt("me@example.com", "198.51.100.1")).toBeGreaterThan(0);
    await t.succeeded("me@example.com", "198.51.100.1");
    expect(await t.attempt("me@example.com", "198.51.100.1")).toBe(0);
  });

  it("throttle: with Redis unreachable, sign-in is refused 503 Unavailable within about a second, not let through", async () => {
    const redis = createRedis(`redis://127.0.0.1:${await freePort()}`, "ttr-test", createLogger("test", "error"));
    try {
      const started = Date.now();
      const err = await new LoginThrottle(redis, "x").attempt("a@example.com", "127.0.0.1").catch((e: unknown) => e);
      expect(err).toMatchObject({ tag: "Unavailable", status: 503 });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      redis.disconnect();
    }
  });
});

describe("sessions", () => {
  it("401 Unauthorized without a cookie, with a malformed or unknown token", async () => {
    const unknown = `ttr_session=${"A".repeat(43)}`;
    for (const headers of [{}, { Cookie: "ttr_session=short" }, { Cookie: unknown }, { Cookie: "other=1" }]) {
      for (const [method, path] of [["GET", "/project"], ["GET", "/triggers"], ["POST", "/auth/logout"]]) {
        const res = await api.call(method!, path!, headers);
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.json()).toEqual(UNAUTHORIZED);
      }
    }
  });

  it("finds the cookie among others", async () => {
    const s = await signIn(api);
    const res = await api.call("GET", "/project", { Cookie: `a=1; ${s.cookie}; b=2` });
    expect(res.status).toBe(200);
  });

  it("401 once the session has expired", async () => {
    const s = await signIn(api);
    expect((await s.call("GET", "/project")).status).toBe(200);
    await api.db.$executeRawUnsafe(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1::uuid`, (await sessionRow(s.cookie))!.id);
    const res = await s.call("GET", "/project");
    expect(res.status).toBe(401);
    expect(res.json()).toEqual(UNAUTHORIZED);
  });

  it("slides the idle expiry at most once a minute, never past 7 days after sign-in", async () => {
    const s = await signIn(api);
    const id = (await sessionRow(s.cookie))!.id;
    const set = (sql: string) => api.db.$executeRawUnsafe(`UPDATE sessions SET ${sql} WHERE id = $1::uuid`, id);

    // Seen 10 s ago: no write.
    await set(`last_seen_at = now() - interval '10 seconds', expires_at = now() + interval '1 hour'`);
    const before = (await sessionRow(s.cookie))!;
    expect((await s.call("GET", "/project")).status).toBe(200);
    expect(await sessionRow(s.cookie)).toEqual(before);

    // Seen 2 min ago: the idle expiry moves to 12 h from now.
    await set(`last_seen_at = now() - interval '2 minutes', expires_at = now() + interval '1 hour'`);
    expect((await s.call("GET", "/project")).status).toBe(200);
    const slid = (await sessionRow(s.cookie))!;
    expect(Math.abs(slid.expiresAt.getTime() - (Date.now() + 12 * 3600_000))).toBeLessThan(5000);
    expect(Math.abs(slid.lastSeenAt.getTime() - Date.now())).toBeLessThan(5000);

    // Signed in 7 days minus 1 hour ago: capped at the absolute lifetime.
    await set(`created_at = now() - interval '7 days' + interval '1 hour', last_seen_at = now() - interval '2 minutes'`);
    expect((await s.call("GET", "/project")).status).toBe(200);
    const capped = (await sessionRow(s.cookie))!;
    expect(capped.expiresAt.getTime()).toBe(capped.createdAt.getTime() + 7 * 24 * 3600_000);
  });

  it("the dashboard's background refreshes (X-TTR-Background: 1) are not activity: they never slide the idle expiry", async () => {
    const s = await signIn(api);
    const id = (await sessionRow(s.cookie))!.id;
    await api.db.$executeRawUnsafe(`UPDATE sessions SET last_seen_at = now() - interval '2 hours', expires_at = now() + interval '1 hour' WHERE id = $1::uuid`, id);
    const before = (await sessionRow(s.cookie))!;
    expect((await s.call("GET", "/project", { "X-TTR-Background": "1" })).status).toBe(200);
    expect(await sessionRow(s.cookie)).toEqual(before);
    // The same request made by the person slides it.
    expect((await s.call("GET", "/project")).status).toBe(200);
    expect((await sessionRow(s.cookie))!.expiresAt.getTime()).toBeGreaterThan(before.expiresAt.getTime() + 10 * 3600_000);
    // An expired session stays expired for background requests too.
    await api.db.$executeRawUnsafe(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1::uuid`, id);
    expect((await s.call("GET", "/project", { "X-TTR-Background": "1" })).status).toBe(401);
  });

  it("POST /auth/logout: 204, deletes the session and clears the cookie", async () => {
    const s = await signIn(api);
    const res = await s.call("POST", "/auth/logout");
    expect(res.status).toBe(204);
    expect(res.body.length).toBe(0);
    const cleared = res.headers["set-cookie"]!.find((c) => c.startsWith("ttr_session="))!;
    expect(cleared).toMatch(/^ttr_session=;/);
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(await sessionRow(s.cookie)).toBeUndefined();
    const after = await s.call("GET", "/project");
    expect(after.status).toBe(401);
    expect(after.json()).toEqual(UNAUTHORIZED);
  });

  it("signing in again gives a new session; the old one stays valid until it ends", async () => {
    const s = await signIn(api);
    const again = sessionCookieOf(await login(api, s.email, s.password));
    expect(again).not.toBe(s.cookie);
    expect((await api.call("GET", "/project", { Cookie: again })).status).toBe(200);
    expect((await s.call("GET", "/project")).status).toBe(200);
  });
});

describe("cross-site requests", () => {
  const FORBIDDEN = { _tag: "Forbidden", message: "Cross-site request refused" };

  it("403 for a state-changing request with the cookie from another site, and the session stays", async () => {
    const s = await signIn(api);
    const refused: Array<Record<string, string>> = [
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" },
      { Origin: "http://evil.example" },
      { Origin: "null" },
      { Origin: `${api.base.replace("127.0.0.1", "localhost")}` },
      { "Sec-Fetch-Site": "same-origin", Origin: "https://evil.example" },
    ];
    for (const headers of refused) {
      for (const path of ["/auth/logout", "/triggers/00000000-0000-4000-8000-000000000000/replay"]) {
        const res = await s.call("POST", path, headers);
        expect(res.status, JSON.stringify(headers)).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
    }
    expect((await s.call("GET", "/project")).status).toBe(200);
  });

  it("a cookie that names no live session is no credential: 401 from another site too, and a live one is not touched", async () => {
    const dead = `ttr_session=${randomBytes(32).toString("base64url")}`;
    const crossSite = { Cookie: dead, "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json" };
    for (const [method, path] of [["POST", "/tag-policies"], ["POST", "/triggers/00000000-0000-4000-8000-000000000000/replay"], ["DELETE", "/tag-policies/00000000-0000-4000-8000-000000000000"]] as const) {
      const res = await api.call(method, path, crossSite, JSON.stringify({ tag: "x", maxConcurrent: 1 }));
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.json()).toEqual(UNAUTHORIZED);
    }
    const s = await signIn(api);
    await api.db.$executeRawUnsafe(`UPDATE sessions SET last_seen_at = now() - interval '1 hour'`);
    const before = await sessionRow(s.cookie);
    expect((await s.call("POST", "/tag-policies", { "Sec-Fetch-Site": "cross-site" }, { tag: "x", maxConcurrent: 1 })).status).toBe(403);
    expect((await sessionRow(s.cookie))?.lastSeenAt).toEqual(before?.lastSeenAt);
  });

  it("same-origin, none and a matching Origin are accepted; reads are never refused", async () => {
    const s = await signIn(api);
    const id = "00000000-0000-4000-8000-000000000000";
    for (const headers of [{}, { "Sec-Fetch-Site": "same-origin" }, { "Sec-Fetch-Site": "none" }, { Origin: api.base }]) {
      expect((await s.call("POST", `/triggers/${id}/replay`, headers)).status).toBe(404);
    }
    expect((await s.call("GET", "/project", { "Sec-Fetch-Site": "cross-site", Origin: "http://evil.example" })).status).toBe(200);
  });

  it("sign-in from another site is refused too", async () => {
    await createUser(api.db, api.projectId, "csrf@example.com", "pw");
    const res = await login(api, "csrf@example.com", "pw", { Origin: "http://evil.example" });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual(FORBIDDEN);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect((await login(api, "csrf@example.com", "pw", { "Sec-Fetch-Site": "same-origin", Origin: api.base })).status).toBe(200);
  });
});
