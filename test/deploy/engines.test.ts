// The root package.json's `engines` names the Node versions ttr is tested on:
// the 20.x these tests run on, and the LTS line the container image runs.
// Every package in the lockfile must accept the lowest version of each, so
// that installing on a supported Node prints no engine warning.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const engines: string = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).engines.node;
const lock = parse(readFileSync(path.join(root, "pnpm-lock.yaml"), "utf8")) as { packages: Record<string, { engines?: { node?: string } }> };

/** The Node version of the image's base, from `ARG NODE_IMAGE=node:<version>-…`. */
function imageNode(): string {
  const dockerfile = readFileSync(path.join(root, "deploy", "docker", "Dockerfile"), "utf8");
  const tag = /^ARG NODE_IMAGE=node:(\d+(?:\.\d+){0,2})-/m.exec(dockerfile)?.[1];
  if (!tag) throw new Error("deploy/docker/Dockerfile: no ARG NODE_IMAGE=node:<version>-…");
  return semver.coerce(tag)!.version;
}

/** The lowest version of each `||` alternative of the range: ^20.19 || ^24 -> 20.19.0, 24.0.0. */
const lowest = new semver.Range(engines).set.map((comparators) => semver.minVersion(new semver.Range(comparators.map((c) => c.value).join(" ")))!.version);

describe(`engines.node ${engines}`, () => {
  it("takes the Node these tests run on and the image's Node, and no Node line below 20.19", () => {
    expect(semver.satisfies(process.version, engines), process.version).toBe(true);
    expect(semver.satisfies(imageNode(), engines), imageNode()).toBe(true);
    expect(semver.satisfies("20.18.3", engines)).toBe(false);
    expect(lowest).toContain("20.19.0");
  });

  it.each(lowest)("every locked package accepts Node %s (no engine warning on install)", (version) => {
    const refusing = Object.entries(lock.packages)
      .filter(([, p]) => p.engines?.node !== undefined && !semver.satisfies(version, p.engines.node))
      .map(([name, p]) => `${name} wants node ${p.engines!.node}`);
    expect(refusing).toEqual([]);
  });
});
