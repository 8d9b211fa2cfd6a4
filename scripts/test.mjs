// `npm test`: the whole suite. Setup has run (package.json chains it);
// vitest's global setup finds or starts PostgreSQL and Redis.
import path from "node:path";
import { root, run } from "./lib.mjs";

run(path.join(root, "node_modules", ".bin", "vitest"), ["run", ...process.argv.slice(2)]);
