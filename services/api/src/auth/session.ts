// Dashboard sessions (docs/api/dashboard-api.md). The `ttr_session` cookie carries a random
// token; the database keeps only its SHA-256, so a leaked sessions table
// cannot be replayed. A session ends after 12 hours without a request, and
// 7 days after sign-in whatever the activity.
//
// Cross-site requests: the cookie is SameSite=Strict, which already keeps
// browsers from sending it on cross-site requests. As a second line for
// older browsers and same-site-but-cross-origin pages, a state-changing
// request that carries the cookie is refused when Sec-Fetch-Site or Origin
// says it came from another origin (see refuseCrossSite).
import type { NextFunction, Request, Response } from "express";
import { forbidden, sha256Hex, unauthorized } from "@ttr/core";
import { authenticateSession, type SessionLifetimes } from "@ttr/db";
import type { Deps } from "../deps.js";

export const SESSION_COOKIE = "ttr_session";

export const SESSION_LIFETIMES: SessionLifetimes = {
  idleSeconds: 12 * 3600,
  absoluteSeconds: 7 * 24 * 3600,
  // Sliding the idle expiry on every request would write a row per request;
  // a minute of slack on a 12-hour window costs nothing.
  touchEverySeconds: 60,
};

/** Marks a request the dashboard makes by itself (a periodic refresh), not on a person's action. */
export const BACKGROUND_HEADER = "x-ttr-background";

/** For background requests: the session is checked but its idle expiry never slides. */
const BACKGROUND_LIFETIMES: SessionLifetimes = { ...SESSION_LIFETIMES, touchEverySeconds: 2_147_483_647 };

/** core's newSessionToken: 32 random bytes, base64url. Anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface SessionAuth {
  projectId: string;
  userId: string;
}

/** The `ttr_session` token of a request's Cookie header, if it has a well-formed one. */
export function sessionToken(req: Request): string | null {
  const header = req.headers.cookie;
  if (header === undefined) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (TOKEN.test(value)) return value;
  }
  return null;
}

/**
 * Whether a request comes from a page of another origin: Sec-Fetch-Site
 * other than same-origin or none (a typed URL, a bookmark), or an Origin
 * whose host is not the host the request was sent to. That host is the
 * Host header, or, from a proxy TRUST_PROXY trusts, its X-Forwarded-Host
 * (express's req.host): a proxy that sends its upstream's name as Host
 * (nginx's proxy_pass does) names the browser's in X-Forwarded-Host.
 */
export function isCrossSite(req: Request): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    const from = new URL(origin);
    // Parsing the Host header against the same scheme drops a default port as URL does for Origin.
    return from.host !== new URL(`${from.protocol}//${req.host ?? ""}`).host;
  } catch {
    // `Origin: null` (sandboxed frames, some redirects) and malformed values
    return true;
  }
}

/** 403 for a state-changing request sent from another site. */
export function refuseCrossSite(req: Request): void {
  if (!SAFE_METHODS.has(req.method) && isCrossSite(req)) throw forbidden("Cross-site request refused");
}

/**
 * The project and user of a request's dashboard session, or null when it has
 * no live session. Routes that also accept a session (POST /declare,
 * /tag-policies; docs/api/README.md) call this after their API-key check.
 * A state-changing request from another site that carries a live session is
 * refused with 403 here, so every route that accepts a session is protected.
 * Its session is looked up without being touched, so such a request is not
 * activity; a cookie that names no live session is no credential at all, and
 * the request is answered as one without credentials (401).
 */
export async function sessionProject(deps: Pick<Deps, "pg">, req: Request): Promise<SessionAuth | null> {
  const token = sessionToken(req);
  if (token === null) return null;
  const crossSite = !SAFE_METHODS.has(req.method) && isCrossSite(req);
  // The dashboard's own refreshes say so: an open, forgotten tab is not
  // activity and must not keep its session alive (inactivity expiry).
  const background = crossSite || req.headers[BACKGROUND_HEADER] === "1";
  const session = await authenticateSession(deps.pg, sha256Hex(token), background ? BACKGROUND_LIFETIMES : SESSION_LIFETIMES);
  if (session === undefined) return null;
  if (crossSite) throw forbidden("Cross-site request refused");
  return { projectId: session.projectId, userId: session.userId };
}

/** Express middleware for session-only routes: 401 without a live session, else `res.locals.session`. */
export function requireSession(deps: Pick<Deps, "pg">) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const session = await sessionProject(deps, req);
    if (session === null) throw unauthorized();
    res.locals.session = session;
    next();
  };
}

/** The session that requireSession put on the response. */
export function sessionOf(res: Response): SessionAuth {
  return res.locals.session as SessionAuth;
}
