// Helpers for the dev scripts. Plain Node.js, no dependencies: these run
// before anything is installed.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** `.ttr/`: embedded servers' data, the start banner's env file; TTR_DATA_DIR moves it (tests). */
export const dataDir = process.env.TTR_DATA_DIR ? path.resolve(process.env.TTR_DATA_DIR) : path.join(root, ".ttr");
/**
 * The pnpm setup installs when none is on PATH: the repository's
 * `.ttr/tools`, whatever TTR_DATA_DIR says, since it serves the checkout
 * (the audit and the image build look for it there too), not one run's data.
 */
export const toolsDir = path.join(root, ".ttr", "tools");

export function say(message) {
  process.stderr.write(`ttr: ${message}\n`);
}

export function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { cwd: root, stdio: "inherit", ...opts });
  if (res.error) throw res.error;
  if (res.status !== 0) {
    say(`\`${cmd} ${args.join(" ")}\` failed with exit code ${res.status}`);
    process.exit(res.status ?? 1);
  }
  return res;
}

export function hashFiles(files) {
  const h = createHash("sha256");
  for (const f of files) {
    h.update(f);
    h.update(existsSync(f) ? readFileSync(f) : "");
  }
  return h.digest("hex");
}

/** Runs `fn` only when the inputs changed since the stamp was written. */
export function whenChanged(stamp, inputsHash, fn) {
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === inputsHash) return false;
  fn();
  mkdirSync(path.dirname(stamp), { recursive: true });
  writeFileSync(stamp, inputsHash);
  return true;
}
