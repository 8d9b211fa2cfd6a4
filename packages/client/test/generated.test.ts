// The client's committed types are what the api's current OpenAPI document
// generates: a change to the document without `npm run generate` in
// packages/client fails here.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "scripts", "generate.mjs");

it("src/generated/openapi.ts matches the document of @ttr/api/openapi", () => {
  const res = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8", timeout: 60_000 });
  expect(res.stderr).toBe("");
  expect(res.stdout).toMatch(/matches the OpenAPI document/);
  expect(res.status).toBe(0);
}, 90_000);
