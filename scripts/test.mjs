// `npm test`: the whole suite. Setup has run (package.json chains it);
// vitest's global setup finds or starts PostgreSQL and Redis. The last line
// is the plain `N passed, N failed` summary CI reads.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { dataDir, root } from "./lib.mjs";

mkdirSync(dataDir, { recursive: true });
const report = path.join(dataDir, "test-report.json");
const res = spawnSync(
  path.join(root, "node_modules", ".bin", "vitest"),
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit" },
);
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, "utf8"));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  process.stdout.write(`\nvitest: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
}
process.exit(res.status ?? 1);
