// Structured JSON logs on stdout (docs/operations.md), one line per event.
// Secrets never reach the output: any field whose name looks like a
// credential is replaced before formatting.
import winston from "winston";
import TransportStream from "winston-transport";

const SECRET_KEY = /(api[-_]?key|password|passwd|secret|token|cookie|authorization|session)/i;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === "level" || key === "message") continue;
    info[key] = SECRET_KEY.test(key) ? "[redacted]" : redact(info[key]);
  }
  return info;
});

/** Where winston's formats leave the finished line (its `triple-beam` MESSAGE). */
const MESSAGE = Symbol.for("message");

/** Buffered text is written at once past this many characters. */
const FLUSH_AT = 64 * 1024;

/**
 * The lines logged during one turn of the event loop, written to stdout
 * together when the turn ends (setImmediate). The executor logs a line per
 * attempt: written one by one, as winston's Console transport does, each
 * line costs a system call and stream bookkeeping, about twice the CPU of
 * lines written together (docs/operations.md, logs). Lines stay whole and in
 * order; whatever is still buffered when the process exits, also through
 * process.exit, is written before it does. One buffer serves every logger
 * of the process, so their lines keep the order they were logged in.
 */
const stdoutLines = {
  text: "",
  scheduled: false,
  hooked: false,
  add(line: string): void {
    this.text += `${line}\n`;
    if (!this.hooked) {
      this.hooked = true;
      process.once("exit", () => this.flush());
    }
    if (this.text.length >= FLUSH_AT) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  },
  flush(): void {
    this.scheduled = false;
    if (this.text === "") return;
    const text = this.text;
    this.text = "";
    // synchronous for files and pipes on Linux, so nothing waits behind it
    process.stdout.write(text);
  },
};

class StdoutLines extends TransportStream {
  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    stdoutLines.add(String(info[MESSAGE]));
    next();
  }
}

export type Logger = winston.Logger;

export function createLogger(service: string, level = "info"): Logger {
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(redactFormat(), winston.format.timestamp(), winston.format.json()),
    transports: [new StdoutLines()],
  });
}

/**
 * Makes a crash one JSON line (`<service> stopped`, with the error) and exit
 * code 1, instead of Node's bare stack trace on stderr: a setting that
 * cannot be read, a port already taken, a database never migrated. Call it
 * first thing in a service's main; anything thrown and not caught after it,
 * at start or later, ends the process this way.
 */
export function exitWithJsonOnCrash(service: string): void {
  process.on("uncaughtException", (err: Error) => {
    createLogger(service).error(`${service} stopped`, { error: err?.message ?? String(err), code: (err as NodeJS.ErrnoException)?.code });
    process.exit(1);
  });
}
