// How request paths reach the routes. docs/api/errors.md: a path that does not exist,
// or a method its endpoint does not take, is a 404 without body; paths are
// matched exactly, in case and trailing slash.
import express, { type RequestHandler } from "express";
import { notFoundHandler } from "./errors.js";

export const ROUTING = { caseSensitive: true, strict: true } as const;

/** A router for API endpoints, matching paths exactly. */
export const apiRouter = (): express.Router => express.Router(ROUTING);

/**
 * A path segment that is not valid percent-encoding (a lone `%`, bytes that
 * are not UTF-8) is taken literally, so `/tag-policies/%zz` reaches its route
 * and gets that route's answer (an unknown id) instead of failing to decode.
 */
export const literalBadEscapes: RequestHandler = (req, _res, next) => {
  if (req.url.includes("%")) {
    const q = req.url.indexOf("?");
    const path = q === -1 ? req.url : req.url.slice(0, q);
    const fixed = path
      .split("/")
      .map((segment) => {
        try {
          decodeURIComponent(segment);
          return segment;
        } catch {
          return segment.replaceAll("%", "%25");
        }
      })
      .join("/");
    if (fixed !== path) req.url = fixed + (q === -1 ? "" : req.url.slice(q));
  }
  next();
};

/**
 * express answers HEAD wherever GET is routed; the API's endpoints do not
 * take it (404). /schedule stores a HEAD request like any method, and the
 * dashboard's pages and the probes answer it as web servers do.
 */
export const headOnlyWhereServed: RequestHandler = (req, res, next) => {
  if (req.method !== "HEAD") return next();
  const p = req.path;
  if (p === "/schedule" || p === "/healthz" || p === "/readyz" || p === "/metrics" || p === "/dashboard" || p.startsWith("/dashboard/")) return next();
  notFoundHandler(req, res, next);
};

/**
 * express answers OPTIONS by itself (200 and an Allow header) on every path
 * a router serves; the API's endpoints do not take it (404), except
 * /schedule, which stores an OPTIONS request like any method.
 */
export const optionsOnlyWhereServed: RequestHandler = (req, res, next) => {
  if (req.method !== "OPTIONS" || req.path === "/schedule") return next();
  notFoundHandler(req, res, next);
};
