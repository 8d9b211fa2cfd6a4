// The `cancels` of POST /bulk (docs/api/declare-and-bulk.md) as a pure
// function of what each entry names (bulk_resolve_cancels.sql):
// - a string is looked up as an ID first; only when no trigger or recurring
//   trigger of the project has it is it read as a custom key (docs/api/declare-and-bulk.md);
// - through an ID or a key: pending one-shots and instances (registered,
//   skipped, retrying) and active recurring triggers; queued ones stay, and
//   so do the queued instances of a cancelled recurring trigger;
// - through a tag: the same plus queued triggers with the tag;
// - a target naming nothing cancellable contributes nothing, and is no error
//   (text that could not be stored, such as a NUL, names nothing either).
// Entries follow the request order; within one entry one-shots and instances
// come first, then recurring triggers, oldest first; each trigger once.
import { type JobCancel, storableText } from "@ttr/core";
import type { CancelMatch, CancelTarget } from "@ttr/db";
import type { RawCancel } from "./schema.js";

export interface CancelEntry {
  id: string;
  kind: "job" | "generator";
  customKey: string | null;
}

export interface CancelPlan {
  jobs: JobCancel[];
  /** the jobs named by their own ID: an instance among them keeps its run skipped (skip_cancelled_runs.sql) */
  namedById: JobCancel[];
  generators: string[];
  entries: CancelEntry[];
}

export function cancelTargets(cancels: RawCancel[]): CancelTarget[] {
  return cancels
    .map((c, n): CancelTarget => {
      if (typeof c === "string") return { n, by: "string", value: c };
      if ("id" in c && c.id !== undefined) return { n, by: "id", value: c.id };
      if ("customKey" in c && c.customKey !== undefined) return { n, by: "key", value: c.customKey };
      return { n, by: "tag", value: (c as { tag: string }).tag };
    })
    .filter((t) => storableText(t.value));
}

const PENDING = new Set(["registered", "skipped", "retrying"]);

function cancellable(m: CancelMatch): boolean {
  if (m.kind === "generator") return m.status === "active";
  return PENDING.has(m.status) || (m.via === "tag" && m.status === "queued");
}

const order = (a: CancelMatch, b: CancelMatch) =>
  (a.kind === b.kind ? 0 : a.kind === "job" ? -1 : 1) ||
  new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime() ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function planCancels(targets: CancelTarget[], matches: CancelMatch[]): CancelPlan {
  const byTarget = new Map<number, CancelMatch[]>();
  for (const m of matches) {
    const list = byTarget.get(m.n);
    if (list) list.push(m);
    else byTarget.set(m.n, [m]);
  }
  const jobs = new Map<string, JobCancel>();
  const namedById = new Set<string>();
  const generators = new Set<string>();
  const entries: CancelEntry[] = [];
  for (const target of targets) {
    const found = byTarget.get(target.n) ?? [];
    const byId = found.filter((m) => m.via === "id");
    const named = target.by === "string" ? (byId.length > 0 ? byId : found.filter((m) => m.via === "key")) : found;
    for (const m of named.filter(cancellable).sort(order)) {
      if (m.kind === "generator") {
        if (generators.has(m.id)) continue;
        generators.add(m.id);
      } else {
        if (m.via === "id") namedById.add(m.id);
        const seen = jobs.get(m.id);
        if (seen) {
          seen.queued ||= m.via === "tag";
          continue;
        }
        // a one-shot or instance always has its day; only a recurring trigger has none
        jobs.set(m.id, { id: m.id, partDay: m.partDay as string, queued: m.via === "tag" });
      }
      entries.push({ id: m.id, kind: m.kind, customKey: m.customKey });
    }
  }
  const all = [...jobs.values()];
  return { jobs: all, namedById: all.filter((j) => namedById.has(j.id)), generators: [...generators], entries };
}
