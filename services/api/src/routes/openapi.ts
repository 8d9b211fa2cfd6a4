// GET /openapi.json (the api's OpenAPI 3.1 document, no credentials) and
// GET /reference, the same document rendered for people by Swagger UI, whose
// files come from the swagger-ui-dist package installed with the api: the
// page loads nothing from anywhere else, so it works offline, which its own
// Content-Security-Policy states (docs/openapi.md).
import { createRequire } from "node:module";
import path from "node:path";
import type express from "express";
import type { Response } from "express";
import { notFoundHandler } from "../http/errors.js";
import { apiRouter } from "../http/paths.js";
import { openApiDocument } from "../openapi/index.js";

const SWAGGER_UI_DIST = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** The renderer's files the page uses, by the name it asks for. */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "swagger-ui.css",
  "swagger-ui-bundle.js": "swagger-ui-bundle.js",
  "favicon-32x32.png": "favicon-32x32.png",
};

/**
 * Swagger UI sets element styles from script (allowed without
 * 'unsafe-inline') and draws its icons as data: images; it fetches only
 * /openapi.json, and "Try it out" sends requests to this same origin.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

// Links are relative, so the page also works behind a proxy that serves ttr under a path.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ttr API reference</title>
<link rel="stylesheet" href="reference/swagger-ui.css">
<link rel="icon" type="image/png" href="reference/favicon-32x32.png">
</head>
<body>
<noscript>This page renders <a href="openapi.json">openapi.json</a>, the description of ttr's API, and needs JavaScript.</noscript>
<div id="reference"></div>
<script src="reference/swagger-ui-bundle.js"></script>
<script src="reference/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an outside validator for a badge.
const INIT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: new URL("openapi.json", document.baseURI).href,
    dom_id: "#reference",
    validatorUrl: null,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
`;

function secure(res: Response): void {
  res.set({
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
  });
}

export function openApiRoutes(): express.Router {
  const router = apiRouter();
  // Built once: the document is a constant of this build of the api.
  const document = JSON.stringify(openApiDocument());

  router.get("/openapi.json", (_req, res) => {
    res.status(200).type("application/json").set("Cache-Control", "no-cache").send(document);
  });

  router.get("/reference", (_req, res) => {
    secure(res);
    res.status(200).type("text/html").set("Cache-Control", "no-cache").send(PAGE);
  });

  router.get("/reference/init.js", (_req, res) => {
    secure(res);
    res.status(200).type("text/javascript").set("Cache-Control", "no-cache").send(INIT);
  });

  router.get("/reference/:asset", (req, res, next) => {
    const name = req.params.asset;
    if (!Object.hasOwn(ASSETS, name)) return notFoundHandler(req, res, next);
    secure(res);
    // With `root`, only the file's own name is checked for dot segments, not the
    // package store's path (pnpm keeps packages under node_modules/.pnpm).
    res.sendFile(ASSETS[name]!, { root: SWAGGER_UI_DIST, maxAge: "1h" });
  });

  return router;
}
