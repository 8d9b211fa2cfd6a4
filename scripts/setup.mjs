// `npm run setup` (docs/configuration.md): everything `npm start` and `npm test` need
// installed and built. Idempotent; each step is skipped when its inputs did
// not change, so a second run takes a few seconds.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { hashFiles, root, run, say, toolsDir, whenChanged } from "./lib.mjs";

const PNPM_VERSION = "12.21.0";

/**
 * pnpm 12 from PATH, else a copy installed under .ttr/tools with npm. Looked
 * up only when an install runs, so that a set-up clone needs no registry.
 */
function pnpm() {
  const onPath = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  if (onPath.status === 0 && onPath.stdout.trim().startsWith("12.")) return "pnpm";
  const local = path.join(toolsDir, "node_modules", ".bin", "pnpm");
  if (!existsSync(local)) {
    say(`installing pnpm ${PNPM_VERSION} into ${path.relative(root, toolsDir)}`);
    run("npm", ["install", "--prefix", toolsDir, `pnpm@${PNPM_VERSION}`, "--no-audit", "--no-fund", "--loglevel=error"]);
  }
  return local;
}

function workspaceManifests() {
  const files = [path.join(root, "package.json"), path.join(root, "pnpm-lock.yaml"), path.join(root, "pnpm-workspace.yaml")];
  for (const group of ["packages", "services"]) {
    for (const name of readdirSync(path.join(root, group))) {
      const manifest = path.join(root, group, name, "package.json");
      if (existsSync(manifest)) files.push(manifest);
    }
  }
  return files;
}

const started = Date.now();

whenChanged(path.join(root, "node_modules", ".ttr-install-stamp"), hashFiles(workspaceManifests()), () => {
  say("installing dependencies (pnpm install --frozen-lockfile)");
  run(pnpm(), ["install", "--frozen-lockfile", "--reporter=append-only"]);
});

const schema = path.join(root, "prisma", "schema.prisma");
whenChanged(path.join(root, "packages", "db", "src", "generated", ".stamp"), hashFiles([schema, path.join(root, "pnpm-lock.yaml")]), () => {
  say("generating the Prisma client");
  run(process.execPath, [path.join(root, "packages", "db", "scripts", "generate.mjs")]);
});

run(path.join(root, "node_modules", ".bin", "tsc"), ["-b"]);

// The dashboard UI: type-checked by its own tsconfig (not part of `tsc -b`),
// then built by Vite into services/dashboard/dist, which the api serves. The
// stamp lives in dist, so a deleted build is rebuilt.
const dashboard = path.join(root, "services", "dashboard");
const filesUnder = (dir) =>
  readdirSync(dir).sort().flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
const dashboardInputs = [
  ...filesUnder(path.join(dashboard, "src")),
  ...["index.html", "vite.config.ts", "tsconfig.json", "package.json"].map((f) => path.join(dashboard, f)),
  // The next runs it shows come from the core's cron code, bundled in.
  ...["cron-next.ts", "zone-clock.ts"].map((f) => path.join(root, "packages", "core", "src", f)),
  path.join(root, "pnpm-lock.yaml"),
];
whenChanged(path.join(dashboard, "dist", ".ttr-build-stamp"), hashFiles(dashboardInputs), () => {
  say("building the dashboard (tsc -p services/dashboard, vite build)");
  run(path.join(root, "node_modules", ".bin", "tsc"), ["-p", dashboard]);
  run(path.join(dashboard, "node_modules", ".bin", "vite"), ["build", "--logLevel", "warn"], { cwd: dashboard });
});
say(`setup done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
