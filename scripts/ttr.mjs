// `npm run ttr -- <command>`: the admin CLI from a clone, with only Node and
// npm on the machine. A clone that was never set up is set up first (its
// progress goes to stderr, so `--json` still prints one JSON object alone on
// stdout); after that the CLI starts at once.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./lib.mjs";

const cli = path.join(root, "packages", "cli", "dist", "main.js");
const installed = path.join(root, "node_modules", ".ttr-install-stamp");
if (!existsSync(cli) || !existsSync(installed)) {
  process.stderr.write("ttr: setting up this clone first (npm run setup)\n");
  const setup = spawnSync(process.execPath, [path.join(root, "scripts", "setup.mjs")], { cwd: root, stdio: ["ignore", 2, 2] });
  if (setup.status !== 0) process.exit(setup.status ?? 1);
}
// The CLI reads its arguments from process.argv, which already holds them.
await import(pathToFileURL(cli).href);
