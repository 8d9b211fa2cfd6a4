// @ttr/client as it is published: public, built, typed, with no runtime
// dependencies, and a method for every operation of the OpenAPI document its
// types were generated from.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TtrClient } from "@ttr/client";
import { describe, expect, it } from "vitest";

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));

/** Each operationId of the document, and the client method that calls it (null: a page for people, not an API). */
const METHODS: Record<string, keyof TtrClient | null> = {
  scheduleGet: "schedule",
  schedulePut: "schedule",
  schedulePost: "schedule",
  scheduleDelete: "schedule",
  scheduleOptions: "schedule",
  scheduleHead: "schedule",
  schedulePatch: "schedule",
  scheduleTrace: "schedule",
  cancel: "cancel",
  declare: "declare",
  bulk: "bulk",
  listTagPolicies: "listTagPolicies",
  putTagPolicy: "putTagPolicy",
  changeTagPolicy: "changeTagPolicy",
  deleteTagPolicy: "deleteTagPolicy",
  login: "login",
  logout: "logout",
  listTriggers: "listTriggers",
  getTrigger: "getTrigger",
  createTrigger: "createTrigger",
  editTrigger: "editTrigger",
  cancelTrigger: "cancelTrigger",
  replayTrigger: "replayTrigger",
  retryTrigger: "retryTrigger",
  replayDeadLetters: "replayDeadLetters",
  discardDeadLetters: "discardDeadLetters",
  listExecutions: "listExecutions",
  getProject: "getProject",
  getStats: "getStats",
  getOverview: "getOverview",
  health: "health",
  healthHead: "health",
  readiness: "readiness",
  readinessHead: "readiness",
  metrics: "metrics",
  metricsHead: "metrics",
  openapi: "openApiDocument",
  reference: null,
  referenceAsset: null,
  dashboard: null,
  dashboardHead: null,
  dashboardPage: null,
  dashboardPageHead: null,
};

/** What `npm pack` would write: the tarball's name and the files in it. */
function packed(): { filename: string; files: string[] } {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: pkgDir, encoding: "utf8" });
  const [pack] = JSON.parse(out) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { filename: pack!.filename, files: pack!.files.map((f) => f.path) };
}

/** The targets of the Markdown links of `markdown`, outside code. */
function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?[^)]*\)/g)].map((m) => m[1]!);
}

/** The operationIds in the generated types (`export interface operations { <id>: {…} }`). */
function generatedOperations(): string[] {
  const text = readFileSync(path.join(pkgDir, "src", "generated", "openapi.ts"), "utf8");
  const start = text.indexOf("export interface operations {");
  expect(start).toBeGreaterThan(-1);
  return [...text.slice(start).matchAll(/^ {4}(\w+): \{$/gm)].map((m) => m[1]!);
}

describe("the package", () => {
  it("is publishable: named, versioned, not private, typed exports, no runtime dependencies", () => {
    expect(manifest.name).toBe("@ttr/client");
    expect(manifest.private).toBeUndefined();
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.type).toBe("module");
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toBeUndefined();
    expect(manifest.files).toContain("dist");
    const entry = manifest.exports["."];
    for (const file of [entry.types, entry.default]) expect(statSync(path.join(pkgDir, file)).isFile()).toBe(true);
  });

  it("installs from a checkout: the README's Install packs the tarball npm pack writes, and its links work inside the package", () => {
    const { filename, files } = packed();
    expect(files).toContain("README.md");
    const readme = readFileSync(path.join(pkgDir, "README.md"), "utf8");
    const install = readme.slice(readme.indexOf("## Install"), readme.indexOf("\n## ", readme.indexOf("## Install") + 1));
    expect(install).toContain("npm pack");
    expect(install).toContain(filename);
    expect(install).not.toMatch(/npm install @ttr\/client/);
    // the packed README is read where it lies, without the repository around it
    for (const target of linkTargets(readme)) {
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const file = path.posix.normalize(target.split("#")[0]!);
      expect(files, target).toContain(file);
    }
  });

  it("its built code imports nothing but its own files", () => {
    const dist = path.join(pkgDir, "dist");
    const files = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js"));
    expect(files).toContain("index.js");
    for (const file of files) {
      const text = readFileSync(path.join(dist, file), "utf8");
      const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
      expect(specifiers.filter((s) => !s.startsWith("./") && !s.startsWith("../")), file).toEqual([]);
    }
  });

  it("has a method for every operation of the document", () => {
    const operations = generatedOperations();
    expect(operations.length).toBeGreaterThan(20);
    expect([...operations].sort()).toEqual(Object.keys(METHODS).sort());
    for (const [operation, method] of Object.entries(METHODS)) {
      if (method !== null) expect(typeof TtrClient.prototype[method], `${operation} → ${method}`).toBe("function");
    }
  });
});
