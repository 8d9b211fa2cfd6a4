// What the CLI prints and reads at a terminal, without a process or a
// database: the one reason line of a failed command, control characters
// escaped in text output, and the keys of the hidden password prompt. The
// errors below have the shapes the clients throw (recorded from runs against
// a closed port, a server that never answers, and an unmigrated database).
import { describe, expect, it } from "vitest";
import { reason } from "../src/failure.js";
import { shown, terminalSafe } from "../src/output.js";
import { typeKeys } from "../src/prompt.js";

const URL = "postgresql://admin:s3cr3t-pw@127.0.0.1:6543/ttr";

/** Prisma's error for a statement whose connection failed, as its driver adapter reports it. */
function prismaError(code: string, message: string, cause: Record<string, unknown>) {
  const err = Object.assign(new Error(message), { name: "PrismaClientKnownRequestError", code, meta: { driverAdapterError: Object.assign(new Error(String(cause.kind)), { cause }) } });
  return err;
}

const socketError = (code: string, message: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), { code, errno: -1, syscall: "connect", ...extra });

describe("the reason line of a failed command", () => {
  it("a refused connection reads the same from Prisma and from pg, on one line, naming the server and not the credentials", () => {
    const prisma = prismaError("P1001", "\nInvalid `prisma.project.create()` invocation:\n\n\nCan't reach database server at 127.0.0.1:6543", {
      kind: "DatabaseNotReachable",
      host: "127.0.0.1",
      port: 6543,
    });
    const pg = socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:6543", { address: "127.0.0.1", port: 6543 });
    const raw = prismaError("P2010", "\nInvalid `prisma.$queryRawUnsafe()` invocation:\n\n\nRaw query failed. Code: `N/A`. Message: `Can't reach database server at 127.0.0.1:6543`", {
      kind: "DatabaseNotReachable",
      host: "127.0.0.1",
      port: 6543,
    });
    for (const err of [prisma, pg, raw]) expect(reason(err, URL)).toBe("database unavailable: cannot reach 127.0.0.1:6543 (ECONNREFUSED)");
    // the adapter gives a host name, not an address, when the name did not resolve
    const unknownHost = prismaError("P1001", "Can't reach database server at db.invalid:5432", { kind: "DatabaseNotReachable", host: "db.invalid", port: 5432 });
    expect(reason(unknownHost, "postgresql://u:p@db.invalid/ttr")).toBe("database unavailable: cannot reach db.invalid:5432 (ENOTFOUND)");
  });

  it("a server that accepts and never answers: one line, whichever client gave up", () => {
    const errors = [
      new Error("Connection terminated due to connection timeout", { cause: new Error("Connection terminated unexpectedly") }),
      new Error("timeout expired"),
      Object.assign(new Error("Transaction API error: Unable to start a transaction in the given time."), { code: "P2028", meta: {} }),
    ];
    for (const err of errors) expect(reason(err, URL)).toBe("database unavailable: no answer from 127.0.0.1:6543 (timed out)");
  });

  it("a database without the tables says to migrate; credentials refused say so", () => {
    const prisma = prismaError("P2021", "\nInvalid `prisma.project.findUnique()` invocation:\n\n\nThe table `public.projects` does not exist in the current database.", {
      kind: "TableDoesNotExist",
      originalCode: "42P01",
    });
    const pg = Object.assign(new Error('relation "triggers" does not exist'), { code: "42P01", severity: "ERROR" });
    for (const err of [prisma, pg]) expect(reason(err, URL)).toBe("the database is not migrated: run ttr migrate");
    const auth = Object.assign(new Error('password authentication failed for user "admin"'), { code: "28P01", severity: "FATAL" });
    expect(reason(auth, URL)).toBe("database unavailable: 127.0.0.1:6543 refused the user name or password (28P01)");
  });

  it("any other error is one line, without Prisma's preamble, the URL's password or raw control characters", () => {
    const wrapped = new Error("\nInvalid `prisma.user.create()` invocation:\n\n\nSomething odd\nhappened");
    expect(reason(wrapped, URL)).toBe("Something odd happened");
    expect(reason(new Error(`cannot use ${URL}`), URL)).toBe("cannot use postgresql://admin:***@127.0.0.1:6543/ttr");
    expect(reason(new Error("bad \u001b[2J value"), null)).toBe("bad \\x1b[2J value");
  });
});

describe("text output", () => {
  it("shows C0 and C1 control characters (DEL too) as escapes, and nothing else", () => {
    expect(shown("hi\u001b]0;pwned\u0007\u001b[2J")).toBe("hi\\x1b]0;pwned\\x07\\x1b[2J");
    expect(shown("a\nb\tc\rd\u007f\u009b\u0000")).toBe("a\\nb\\tc\\rd\\x7f\\x9b\\x00");
    expect(shown("plain ascii, été, 日本")).toBe("plain ascii, été, 日本");
    // a backslash is doubled: what a caller typed as `\x1b` never shows as a real ESC does
    expect(shown("\\x1b \\n as typed")).toBe("\\\\x1b \\\\n as typed");
    expect(shown("\\x1b")).not.toBe(shown("\u001b"));
    // the guard over a whole text keeps its line breaks and column tabs, and the escapes `shown` wrote
    expect(terminalSafe("a\tb\nc\u001bd")).toBe("a\tb\nc\\x1bd");
    expect(terminalSafe(shown("\\x1b\u001b"))).toBe("\\\\x1b\\x1b");
  });
});

describe("the hidden password prompt", () => {
  it("Enter ends the line; Backspace and Ctrl-U edit it; Ctrl-C interrupts", () => {
    expect(typeKeys("", "pass\r")).toEqual({ typed: "pass", end: "line" });
    expect(typeKeys("", "pasx\u007fs\n")).toEqual({ typed: "pass", end: "line" });
    expect(typeKeys("", "wrong\u0015right\r")).toEqual({ typed: "right", end: "line" });
    expect(typeKeys("typed", "\u0003")).toEqual({ typed: "typed", end: "interrupt" });
    // keys arrive in chunks: the line goes on until it ends
    expect(typeKeys(typeKeys("", "ab").typed, "c\r")).toEqual({ typed: "abc", end: "line" });
    expect(typeKeys("", "ab")).toEqual({ typed: "ab", end: null });
  });

  it("Ctrl-D ends the input (nothing typed is an empty password); other control keys and escape sequences are left out", () => {
    expect(typeKeys("", "\u0004")).toEqual({ typed: "", end: "line" });
    expect(typeKeys("pass", "\u0004")).toEqual({ typed: "pass", end: "line" });
    // arrows, Delete, F1, Home (ESC O H), Alt-x, Tab, Ctrl-A
    expect(typeKeys("", "p\u001b[Aa\u001b[3~s\u001bOP\u001bOHs\u001bx\t\u0001word\r")).toEqual({ typed: "password", end: "line" });
  });

  it("an escape sequence split over two chunks is left out whole, whichever its split", () => {
    /** Types the chunks one after another, as promptHidden does. */
    const typeChunks = (...chunks: string[]) => {
      let state = typeKeys("", chunks[0]!);
      for (const chunk of chunks.slice(1)) state = typeKeys(state.typed, chunk, state.unfinished);
      return state;
    };
    expect(typeKeys("pa", "\u001b")).toEqual({ typed: "pa", end: null, unfinished: "\u001b" });
    expect(typeChunks("pa\u001b", "[Ass\r")).toEqual({ typed: "pass", end: "line" });
    expect(typeChunks("pa\u001b[", "Ass\r")).toEqual({ typed: "pass", end: "line" });
    // a chunk that decoded to nothing (half a UTF-8 character) keeps the state
    expect(typeChunks("pa\u001b", "", "[Ass\r")).toEqual({ typed: "pass", end: "line" });
    expect(typeChunks("pa\u001b[3", "~ss\r")).toEqual({ typed: "pass", end: "line" });
    expect(typeChunks("pa\u001b", "[1;", "5Css\r")).toEqual({ typed: "pass", end: "line" });
    expect(typeChunks("pa\u001bO", "Pss\r")).toEqual({ typed: "pass", end: "line" });
    expect(typeChunks("pa\u009b", "Ass\r")).toEqual({ typed: "pass", end: "line" });
    // the Escape key alone, then a key: that key is typed
    expect(typeChunks("pa\u001b", "ss\r")).toEqual({ typed: "pass", end: "line" });
    // an unfinished sequence does not swallow Enter
    expect(typeChunks("pass\u001b[", "\r")).toEqual({ typed: "pass", end: "line" });
    // Alt with an arrow (ESC ESC [ A) is left out whole too
    expect(typeKeys("", "p\u001b\u001b[Aass\r")).toEqual({ typed: "pass", end: "line" });
  });
});
