// Structured JSON logs on stdout (docs/operations.md), one line per event.
// Secrets never reach the output: any field whose name looks like a
// credential is replaced before formatting.
import winston from "winston";

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

export type Logger = winston.Logger;

export function createLogger(service: string, level = "info"): Logger {
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(redactFormat(), winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
}
