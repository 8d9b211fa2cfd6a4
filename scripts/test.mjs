// `npm test`: the whole suite. Setup has run (package.json chains it);
// vitest's global setup finds or starts PostgreSQL and Redis. The last line
// is the plain `N passed, N failed` summary CI reads.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { dataDir, root } from "./lib.mjs";

// Besides Node.js and npm, some tests need programs of the machine (README,
// "What npm test needs"). Chromium for the browser tests is installed when
// it is missing and we may (root, apt-get); whatever is still missing is
// said in one line before anything runs, and the tests that need it fail
// saying why.
const CHROMIUM = "/usr/bin/chromium";
const onPath = (program) => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;
if (!existsSync(CHROMIUM) && process.platform === "linux" && process.getuid?.() === 0 && onPath("apt-get")) {
  const apt = (args) => spawnSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } }).status === 0;
  process.stderr.write("ttr: installing chromium for the browser tests (apt-get install -y chromium)\n");
  if (!apt(["install", "-y", "-q", "chromium"]) && apt(["update", "-q"])) apt(["install", "-y", "-q", "chromium"]);
}
const missing = [
  !existsSync(CHROMIUM) && `Chromium at ${CHROMIUM}, so the browser tests fail (apt-get install chromium; npm test does that itself as root)`,
  !onPath("redis-server") && "redis-server on PATH, so the fault tests and the Redis connection tests fail (apt-get install redis-server, brew install redis)",
  !onPath("openssl") && "openssl on PATH, so the Redis TLS tests do not run",
].filter(Boolean);
if (missing.length > 0) process.stderr.write(`ttr: npm test is missing ${missing.join("; ")}\n`);

// The production dependencies against the advisory database first: a high
// or critical advisory with a fix fails the run (scripts/audit.mjs says
// when it could not check).
const audit = spawnSync(process.execPath, [path.join(root, "scripts", "audit.mjs")], { cwd: root, stdio: "inherit" });
if (audit.status !== 0) {
  process.stderr.write("ttr: the dependency audit failed\n");
  process.exit(audit.status ?? 1);
}

// Test files are type-checked too (the build covers only sources).
const typecheck = spawnSync(path.join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.test.json"], { cwd: root, stdio: "inherit" });
if (typecheck.status !== 0) {
  process.stderr.write("ttr: the test files do not type-check\n");
  process.exit(typecheck.status ?? 1);
}

// The services the tests start send to targets on 127.0.0.1 (they are given
// their environment, not this one's), so private networks stay reachable.
process.stdout.write(
  "ttr: the services these tests start run with TTR_BLOCK_PRIVATE_NETWORKS off (their targets are on 127.0.0.1); the tests of the block switch it on, and the container image and the Helm chart default to on\n",
);

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
