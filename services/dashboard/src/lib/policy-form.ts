// The tag-policy form's values and what is sent (docs/api/tag-policies.md):
// POST sends every field (it replaces), PUT only the fields that changed.
// The API's validation messages name their field, which is how each one is
// shown next to the input it is about.
import type { PolicyFields, RetryOn, RetryStrategy, TagPolicy } from "./types";

export interface WindowRow {
  window: string;
  rate: string;
}

export interface PolicyForm {
  tag: string;
  throughput: WindowRow[];
  maxConcurrent: string;
  requestTimeoutSeconds: string;
  retryStrategy: RetryStrategy;
  retryInitialDelaySeconds: string;
  retryMaxDelaySeconds: string;
  retryMaxAttempts: string;
  retryJitter: boolean;
  retryOn: RetryOn;
}

export type FieldName = keyof PolicyForm | "form";
export type FieldErrors = Partial<Record<FieldName, string>>;

export const MAX_WINDOWS = 8;

export const EMPTY_FORM: PolicyForm = {
  tag: "",
  throughput: [],
  maxConcurrent: "",
  requestTimeoutSeconds: "",
  retryStrategy: "none",
  retryInitialDelaySeconds: "",
  retryMaxDelaySeconds: "",
  retryMaxAttempts: "",
  retryJitter: false,
  retryOn: "5xx_and_network",
};

const text = (n: number | null) => (n === null ? "" : String(n));

export function formOf(p: TagPolicy): PolicyForm {
  return {
    tag: p.tag,
    throughput: Object.entries(p.throughput ?? {}).map(([window, rate]) => ({ window, rate: String(rate) })),
    maxConcurrent: text(p.maxConcurrent),
    requestTimeoutSeconds: text(p.requestTimeoutSeconds),
    retryStrategy: p.retryStrategy,
    retryInitialDelaySeconds: text(p.retryInitialDelaySeconds),
    retryMaxDelaySeconds: text(p.retryMaxDelaySeconds),
    retryMaxAttempts: text(p.retryMaxAttempts),
    retryJitter: p.retryJitter,
    retryOn: p.retryOn,
  };
}

const NUMBER = /^-?\d+(\.\d+)?$/;
/** docs/api/tag-policies.md, throughput; a malformed window gets a 400 without a message, so it is checked here. */
const WINDOW = /^[1-9]\d*[smhd]$/;

type NumericField = "maxConcurrent" | "requestTimeoutSeconds" | "retryInitialDelaySeconds" | "retryMaxDelaySeconds" | "retryMaxAttempts";
const NUMERIC: NumericField[] = ["maxConcurrent", "requestTimeoutSeconds", "retryInitialDelaySeconds", "retryMaxDelaySeconds", "retryMaxAttempts"];

/** The fields to send, or the errors that keep the form from being sent. Range checks are the API's. */
export function fieldsOf(form: PolicyForm): { fields: PolicyFields } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const numbers = {} as Record<NumericField, number | null>;
  for (const k of NUMERIC) {
    const v = form[k].trim();
    if (v !== "" && !NUMBER.test(v)) errors[k] = "Enter a number, or leave empty for none.";
    numbers[k] = v === "" ? null : Number(v);
  }
  let throughput: Record<string, number> | null = null;
  for (const row of form.throughput) {
    const w = row.window.trim();
    const r = row.rate.trim();
    if (w === "" && r === "") continue;
    if (!WINDOW.test(w)) errors.throughput ??= `Window "${w}" is not a whole number followed by s, m, h or d (for example 10s, 1m, 1h, 1d).`;
    else if (!NUMBER.test(r)) errors.throughput ??= `Enter a rate for the ${w} window (a number, 0 or more).`;
    else if (throughput?.[w] !== undefined) errors.throughput ??= `The ${w} window is listed twice.`;
    else throughput = { ...(throughput ?? {}), [w]: Number(r) };
  }
  if (Object.keys(errors).length > 0) return { errors };
  return {
    fields: {
      tag: form.tag.trim(),
      throughput,
      ...numbers,
      retryStrategy: form.retryStrategy,
      retryJitter: form.retryJitter,
      retryOn: form.retryOn,
    },
  };
}

const canonical = (t: Record<string, number> | null) =>
  t === null || Object.keys(t).length === 0 ? "null" : JSON.stringify(Object.entries(t).sort(([a], [b]) => a.localeCompare(b)));

/** The fields of `next` that differ from the stored policy: the body of a PUT. */
export function changedFields(stored: TagPolicy, next: PolicyFields): Partial<PolicyFields> {
  const out: Partial<PolicyFields> = {};
  for (const k of Object.keys(next) as Array<keyof PolicyFields>) {
    const same = k === "throughput" ? canonical(stored.throughput) === canonical(next.throughput) : stored[k] === next[k];
    if (!same) (out as Record<string, unknown>)[k] = next[k];
  }
  return out;
}

/** Which input an API validation message (docs/api/tag-policies.md) is about. */
export function fieldOfMessage(message: string): FieldName {
  if (/^Invalid tag|^Tag policy for/.test(message)) return "tag";
  if (message.includes("requestTimeoutSeconds")) return "requestTimeoutSeconds";
  if (message.includes("maxConcurrent")) return "maxConcurrent";
  if (/throughput|Throughput|Effective window/.test(message) && !message.startsWith("At least one")) return "throughput";
  if (message.includes("retryMaxAttempts")) return "retryMaxAttempts";
  if (message.includes("retryInitialDelaySeconds")) return "retryInitialDelaySeconds";
  if (message.includes("retryMaxDelaySeconds")) return "retryMaxDelaySeconds";
  return "form";
}

/** One line about a policy's limits and retries for the list. */
export function summary(p: TagPolicy): { limits: string[]; retry: string } {
  const limits: string[] = [];
  for (const [w, r] of Object.entries(p.throughput ?? {})) limits.push(r === 0 ? `paused (${w} at 0)` : `${r} per ${w}`);
  if (p.maxConcurrent !== null) limits.push(`${p.maxConcurrent} at a time`);
  if (p.requestTimeoutSeconds !== null) limits.push(`timeout ${p.requestTimeoutSeconds} s`);
  if (p.retryStrategy === "none") return { limits, retry: "No retries" };
  const on = { network_only: "network failures", "5xx_and_network": "5xx and network failures", non_2xx: "any non-2xx" }[p.retryOn];
  const attempts = p.retryMaxAttempts === null ? "unlimited attempts" : `up to ${p.retryMaxAttempts} attempts`;
  const delay = `${p.retryInitialDelaySeconds ?? 0} s${p.retryStrategy === "exponential" ? " doubling" : ""}${
    p.retryMaxDelaySeconds !== null && p.retryStrategy === "exponential" ? ` (max ${p.retryMaxDelaySeconds} s)` : ""
  }`;
  return { limits, retry: `${p.retryStrategy === "fixed" ? "Fixed" : "Exponential"} ${delay}, ${attempts}, on ${on}${p.retryJitter ? ", jitter" : ""}` };
}
