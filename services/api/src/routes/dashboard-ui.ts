// The dashboard UI at /dashboard (docs/api/dashboard-api.md): the static files of
// services/dashboard/dist, and index.html for every other path under
// /dashboard so the single-page app's own routes survive a reload. Until
// the UI is built (`npm run setup`) /dashboard answers 503 with a text that
// says so; the session API works without it.
//
// Asset names carry a content hash, so they are cached for a year; index.html
// is revalidated on every load so a new build is picked up at once. The page
// talks only to this origin, which a strict Content-Security-Policy states.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express, { type Response } from "express";
import { notFoundHandler } from "../http/errors.js";

/** services/dashboard/dist, from services/api/dist/routes (built) or src/routes (sources). */
export const DASHBOARD_DIST = fileURLToPath(new URL("../../../dashboard/dist/", import.meta.url));

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

function secure(res: Response): void {
  res.set({
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
  });
}

export function dashboardUiRoutes(dist: string = DASHBOARD_DIST): express.Router {
  const router = express.Router();
  const index = path.join(dist, "index.html");

  router.use((_req, res, next) => {
    secure(res);
    next();
  });

  router.use("/assets", express.static(path.join(dist, "assets"), { index: false, redirect: false, immutable: true, maxAge: "365d" }), notFoundHandler);
  router.use(express.static(dist, { index: false, redirect: false, maxAge: 0 }));

  // Checked per request, so a build made while the api runs is served without a restart.
  router.get("/{*rest}", (_req, res) => {
    if (!existsSync(index)) {
      res.status(503).type("text/plain").send("The dashboard is not built. Run `npm run setup` to build services/dashboard, then reload.\n");
      return;
    }
    res.set("Cache-Control", "no-cache");
    res.sendFile(index);
  });

  return router;
}
