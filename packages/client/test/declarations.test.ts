// The published declarations (dist/*.d.ts) as a strict Node.js consumer
// compiles them: lib ES2022 without DOM, types ["node"], skipLibCheck off and
// exactOptionalPropertyTypes on (test/fixtures/node-consumer).
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const fixture = path.join(pkgDir, "test", "fixtures", "node-consumer");

/** Each diagnostic as `file:line: message`, the file relative to the package. */
function describeAll(diagnostics: readonly ts.Diagnostic[]): string[] {
  return diagnostics.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (d.file === undefined || d.start === undefined) return message;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${path.relative(pkgDir, d.file.fileName)}:${line + 1}: ${message}`;
  });
}

let diagnostics: string[];
beforeAll(() => {
  const configPath = path.join(fixture, "tsconfig.json");
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => expect.fail(String(d.messageText)) });
  if (config === undefined) throw new Error(`cannot read ${configPath}`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  diagnostics = describeAll(ts.getPreEmitDiagnostics(program));
}, 30_000);

describe("the published types in a Node.js program", () => {
  it("dist/*.d.ts compile without DOM types and with skipLibCheck off", () => {
    expect(diagnostics.filter((d) => d.startsWith("dist/"))).toEqual([]);
  });

  it("optional options take a possibly-undefined value (process.env) under exactOptionalPropertyTypes", () => {
    expect(diagnostics.filter((d) => d.startsWith("test/"))).toEqual([]);
  });

  it("nothing else fails", () => {
    expect(diagnostics).toEqual([]);
  });
});
