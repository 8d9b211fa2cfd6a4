#!/usr/bin/env node
// Generates the Prisma client into packages/db/src/generated/prisma, offline.
//
// The Prisma 7 CLI tries to download its native schema engine before every
// command, including `generate`, which never uses it. Pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any executable file skips the download;
// generation itself runs on the WebAssembly build of prisma-schema bundled in
// the CLI. An engine given in the environment is respected.
//
// Usage: node packages/db/scripts/generate.mjs [extra `prisma generate` args]
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = path.resolve(pkgDir, "..", "..");
const require = createRequire(path.join(pkgDir, "package.json"));
const prismaCli = path.join(path.dirname(require.resolve("prisma/package.json")), "build", "index.js");

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Any executable will do: `generate` checks the engine exists but never runs it. */
function placeholderEngine() {
  for (const candidate of ["/bin/true", "/usr/bin/true"]) if (isExecutable(candidate)) return candidate;
  return process.execPath;
}

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || placeholderEngine(),
  // no telemetry or update checks: they would only time out here
  CHECKPOINT_DISABLE: "1",
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
};

const res = spawnSync(
  process.execPath,
  [prismaCli, "generate", "--config", path.join(root, "prisma.config.ts"), ...process.argv.slice(2)],
  { cwd: root, env, stdio: "inherit" },
);
if (res.error) throw res.error;
if (res.status !== 0) process.exit(res.status ?? 1);

const entry = path.join(pkgDir, "src", "generated", "prisma", "client.ts");
if (!existsSync(entry)) {
  process.stderr.write(`generate.mjs: expected the client at ${path.relative(root, entry)}; check the generator output in prisma/schema.prisma\n`);
  process.exit(1);
}
