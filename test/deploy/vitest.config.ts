// The root configuration with only test/deploy included:
//   node_modules/.bin/vitest run -c test/deploy/vitest.config.ts
// (`npm test` runs these files once the root vitest.config.ts includes
// "test/deploy/**/*.test.ts".)
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base from "../../vitest.config.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const { projects: _projects, ...shared } = base.test ?? {};

export default defineConfig({ ...base, root, test: { ...shared, include: ["test/deploy/**/*.test.ts"] } });
