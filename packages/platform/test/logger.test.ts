import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const built = fileURLToPath(new URL("../dist/index.js", import.meta.url));

/**
 * Runs `body` in a Node process of its own with `log` (createLogger("test"))
 * in scope, stdout a pipe; also answers how many times stdout was written to.
 */
function runLogging(body: string) {
  const script = `
    let writes = 0;
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (...args) => { writes++; return write(...args); };
    process.on("exit", () => process.stderr.write(JSON.stringify({ writes })));
    const { createLogger } = await import(${JSON.stringify(built)});
    const log = createLogger("test");
    ${body}`;
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
  const lines = out.stdout.split("\n");
  expect(lines.pop()).toBe(""); // ends with a newline
  return { status: out.status, lines: lines.map((l) => JSON.parse(l) as Record<string, unknown>), writes: (JSON.parse(out.stderr) as { writes: number }).writes };
}

describe("createLogger", () => {
  it("writes the lines of one turn of the event loop together, whole and in order", () => {
    const r = runLogging(`
      for (let i = 0; i < 300; i++) log.info("one", { n: i });
      setTimeout(() => log.warn("later", { n: 300 }), 20);`);
    expect(r.status).toBe(0);
    expect(r.lines.map((l) => l.n)).toEqual(Array.from({ length: 301 }, (_, i) => i));
    expect(r.lines[0]).toMatchObject({ level: "info", message: "one", service: "test" });
    expect(r.lines[300]).toMatchObject({ level: "warn", message: "later" });
    expect(typeof r.lines[0]?.timestamp).toBe("string");
    // one write per turn: the 300 lines, then the later one
    expect(r.writes).toBe(2);
  });

  it("writes what is still buffered when the process exits, also through process.exit", () => {
    const r = runLogging(`
      log.info("before");
      log.error("fatal", { error: "boom" });
      process.exit(3);`);
    expect(r.status).toBe(3);
    expect(r.lines.map((l) => l.message)).toEqual(["before", "fatal"]);
    expect(r.lines[1]).toMatchObject({ level: "error", error: "boom" });
  });

  it("writes large bursts in pieces of whole lines", () => {
    const r = runLogging(`for (let i = 0; i < 2000; i++) log.info("x".repeat(100), { n: i });`);
    expect(r.lines).toHaveLength(2000);
    expect(r.lines.every((l, i) => l.n === i)).toBe(true);
    expect(r.writes).toBeGreaterThan(1);
    expect(r.writes).toBeLessThan(20);
  });

  it("redacts fields named like credentials, at any depth", () => {
    const r = runLogging(`log.info("login", { apiKey: "k1", user: { password: "p", name: "ann" }, headers: [{ Authorization: "a" }] });`);
    expect(r.lines[0]).toMatchObject({ apiKey: "[redacted]", user: { password: "[redacted]", name: "ann" }, headers: [{ Authorization: "[redacted]" }] });
    expect(JSON.stringify(r.lines)).not.toMatch(/"k1"|"p"|"a"/);
  });
});
