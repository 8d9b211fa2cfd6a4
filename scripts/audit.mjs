// The dependency audit `npm test` runs first: the production dependencies
// (pnpm audit --prod) against the registry's advisory database. It fails on
// an advisory of high or critical severity that has a fixed version to move
// to; lower ones, and those with no fix yet, are listed and let through.
// When the advisory database cannot be reached (offline, or a registry
// mirror without the audit endpoint), it says that it skipped, and why, and
// lets the run go on: an audit that did not happen is never reported as a
// clean one.
//
// Usage: node scripts/audit.mjs          (exit 1 on a blocking advisory)
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { root, toolsDir } from "./lib.mjs";

const BLOCKING = new Set(["high", "critical"]);

/**
 * The advisories of a `pnpm audit --json` report, each with whether it
 * blocks: high or critical, with a patched version to move to.
 */
export function judge(report) {
  const advisories = Object.values(report?.advisories ?? {});
  return advisories.map((a) => {
    const fixable = typeof a.patched_versions === "string" && a.patched_versions.trim() !== "" && a.patched_versions.trim() !== "<0.0.0";
    return {
      module: a.module_name,
      severity: a.severity,
      title: a.title,
      patched: a.patched_versions,
      url: a.url,
      blocking: BLOCKING.has(a.severity) && fixable,
    };
  });
}

/** Why the audit could not run, from pnpm's output, or null if it ran. */
export function unreachable(stdout, stderr) {
  const text = `${stdout}\n${stderr}`;
  const m = /ERR_PNPM_AUDIT_BAD_RESPONSE|ERR_PNPM_AUDIT_ENDPOINT|ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|ECONNRESET|responded with \d+/.exec(text);
  return m ? m[0] : null;
}

function pnpm() {
  const local = path.join(toolsDir, "node_modules", ".bin", "pnpm");
  const onPath = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  return onPath.status === 0 ? "pnpm" : local;
}

function main() {
  const res = spawnSync(pnpm(), ["audit", "--prod", "--json"], { cwd: root, encoding: "utf8", timeout: 60_000 });
  const say = (m) => process.stderr.write(`ttr: ${m}\n`);
  let report = null;
  try {
    report = JSON.parse(res.stdout);
  } catch {
    report = null;
  }
  if (!report || report.error) {
    const why = unreachable(res.stdout ?? "", res.stderr ?? "") ?? (res.error ? res.error.message : `pnpm audit exited ${res.status} without a report`);
    say(`dependency audit SKIPPED: the advisory database could not be reached (${why}); nothing was checked`);
    return 0;
  }
  const found = judge(report);
  for (const a of found) say(`advisory: ${a.module} ${a.severity}: ${a.title} (fixed in ${a.patched}) ${a.url ?? ""}${a.blocking ? "  <- blocking" : ""}`);
  const blocking = found.filter((a) => a.blocking);
  if (blocking.length > 0) {
    say(`dependency audit FAILED: ${blocking.length} high or critical advisories with a fix available`);
    return 1;
  }
  say(`dependency audit passed: ${found.length} advisories, none high or critical with a fix available`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main());
