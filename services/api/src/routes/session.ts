// POST /auth/login and POST /auth/logout (docs/api/dashboard-api.md).
import type express from "express";
import type { Request, Response } from "express";
import Joi from "joi";
import { ApiError, badRequest, hashPassword, MAX_PASSWORD_LENGTH, newSessionToken, passwordNeedsRehash, sha256Hex, storableText, tooManyRequests, unauthorized, verifyPassword } from "@ttr/core";
import { createSession, deleteSession, findUserByEmail, rehashPassword } from "@ttr/db";
import type { Deps } from "../deps.js";
import { clientBucket } from "../auth/failure-budget.js";
import { LoginThrottle } from "../auth/login-limit.js";
import { refuseCrossSite, requireSession, SESSION_COOKIE, SESSION_LIFETIMES, sessionToken } from "../auth/session.js";
import { readBody } from "../http/body.js";
import { apiRouter } from "../http/paths.js";

/** Unknown fields are ignored. (The 16 KiB body bounds the lengths; see MAX_EMAIL_LENGTH.) */
const LOGIN_BODY = Joi.object({
  email: Joi.string().min(1).required(),
  password: Joi.string().min(1).required(),
})
  .unknown(true)
  .required();

/** Session errors are JSON (docs/api/dashboard-api.md), a malformed sign-in body too. */
/**
 * No user has a longer email (the CLI takes at most 254 characters) or a
 * longer password than MAX_PASSWORD_LENGTH: such a sign-in is a wrong one,
 * refused without a lookup or any scrypt work.
 */
const MAX_EMAIL_LENGTH = 320;

const badLogin = () => badRequest("Sign in with a JSON body {\"email\", \"password\"}, both non-empty strings");
/**
 * The sign-in body: JSON when the Content-Type says so, else nothing. Read
 * with readBody (not express.json) so that a body the parser gave up on is
 * answered at once (http/body.ts).
 */
async function loginBody(req: Request): Promise<unknown> {
  if (!req.is("application/json")) return undefined;
  try {
    const bytes = await readBody(req, 16 * 1024, "16 KiB");
    return JSON.parse(bytes.toString("utf8"));
  } catch (err) {
    throw err instanceof ApiError && err.status === 413 ? err : badLogin();
  }
}

function cookieOptions(req: Request, secure: boolean | undefined) {
  return { httpOnly: true, sameSite: "strict", path: "/", secure: secure ?? req.secure } as const;
}

export function sessionRoutes(deps: Deps): express.Router {
  const router = apiRouter();
  const throttle = new LoginThrottle(deps.redis, deps.redisPrefix ?? "ttr");
  // Verified against when the email is unknown, so a wrong email costs the
  // same scrypt time as a wrong password and response times do not reveal
  // which emails have accounts.
  const decoy = hashPassword(newSessionToken());

  router.post("/auth/login", async (req: Request, res: Response) => {
    const { error, value } = LOGIN_BODY.validate(await loginBody(req));
    if (error) throw badLogin();
    // No cookie is needed to sign in, but a cross-site form must not sign a
    // browser into someone else's account either.
    refuseCrossSite(req);
    const email = (value.email as string).toLowerCase();

    // an IPv6 client by its /64, as the failed-authentication budget counts it
    const address = clientBucket(req.ip ?? "unknown");
    const waitSeconds = await throttle.attempt(email, address);
    if (waitSeconds > 0) {
      res.set("Retry-After", String(waitSeconds));
      throw tooManyRequests("Too many sign-in attempts, try again later");
    }

    const password = value.password as string;
    if (email.length > MAX_EMAIL_LENGTH || password.length > MAX_PASSWORD_LENGTH) throw unauthorized("Invalid credentials");
    // An email PostgreSQL could not even compare (a NUL) belongs to no one.
    const user = storableText(email) ? await findUserByEmail(deps.db, email) : undefined;
    const valid = await verifyPassword(password, user?.passwordHash ?? (await decoy));
    if (!user || !valid) throw unauthorized("Invalid credentials");
    await throttle.succeeded(email, address);
    // Stored with older scrypt settings: the password is at hand, store it anew.
    if (passwordNeedsRehash(user.passwordHash)) {
      await rehashPassword(deps.db, user.id, user.passwordHash, await hashPassword(password));
    }

    const token = newSessionToken();
    await createSession(deps.db, user.id, sha256Hex(token), SESSION_LIFETIMES);
    // The cookie outlives the browser session up to the absolute lifetime;
    // the idle limit is enforced by the server.
    res.cookie(SESSION_COOKIE, token, { ...cookieOptions(req, deps.cookieSecure), maxAge: SESSION_LIFETIMES.absoluteSeconds * 1000 });
    res.status(200).json({ user: { id: user.id, email: user.email }, project: { id: user.projectId, name: user.projectName } });
  });

  router.post("/auth/logout", requireSession(deps), async (req: Request, res: Response) => {
    await deleteSession(deps.db, sha256Hex(sessionToken(req)!));
    res.clearCookie(SESSION_COOKIE, cookieOptions(req, deps.cookieSecure));
    res.status(204).end();
  });

  return router;
}
