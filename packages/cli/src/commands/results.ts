// Commands that read what happened to a project's triggers and act on them,
// answering exactly as the api's dashboard endpoints and DELETE /cancel do
// (the same functions of @ttr/db): lists are newest first, paged with the
// `nextCursor` they print.
import {
  cancelOne,
  type DeadLetterAction,
  deadLetterSelection,
  deadLettersInBulk,
  decodeCursor,
  executionPage,
  type ExecutionJson,
  sendAgain,
  triggerListFilter,
  triggerPage,
  triggerWithExecutions,
  type TriggerJson,
} from "@ttr/db";
import { limit, need, UsageError, uuid } from "../args.js";
import { type Command, type Context, type Flags, str } from "../command.js";
import { shown } from "../output.js";
import { projectExists } from "./project.js";

const s = { type: "string" } as const;

/**
 * The --project flag's ID: a malformed one is a usage error. Each command
 * reads all its flags before it looks the project up (projectExists).
 */
const projectFlag = (flags: Flags) => uuid(str(flags, "project"), "project");

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

const cursorOf = (flags: Flags) => {
  const raw = str(flags, "cursor");
  return raw === undefined ? null : decodeCursor(raw);
};

const when = (iso: string | null) => iso ?? "-";

// Text output shows what a project's callers wrote (URL, key, tags, headers,
// body, title) through `shown`: its control characters as escapes.

function triggerLine(t: TriggerJson): string {
  const at = t.kind === "generator" ? `cron(${t.cronExpr}, ${t.tz})` : when(t.scheduledAt);
  return [t.id, t.kind, t.status, at, `${t.method} ${t.url}`, t.customKey ?? "", t.tags.join(",")].map(shown).join("\t");
}

function executionLine(e: ExecutionJson): string {
  const outcome = e.responseStatus !== null ? `HTTP ${e.responseStatus}` : (e.errorMessage ?? e.status);
  return [e.id, e.triggerId, `#${e.attemptNumber}`, e.triggeredBy, e.status, when(e.completedAt ?? e.plannedAt), outcome, e.isDeadLetter ? "dead letter" : ""]
    .map(shown)
    .join("\t");
}

/** A page's lines, a line saying it is empty, and how to get the next page. */
function pageText(lines: string[], empty: string, nextCursor: string | null): string {
  const more = nextCursor === null ? "" : `\nmore: --cursor ${nextCursor}`;
  return (lines.length ? lines.join("\n") : empty) + more;
}

const BULK_SYNOPSIS = "[--tag <t>] [--from <iso>] [--to <iso>] [--yes]";
const bulkOptions = { tag: s, from: s, to: s, yes: { type: "boolean" } } as const;

/**
 * Dead letters in bulk (docs/api/dead-letters.md), as POST /dead-letters/replay
 * and /discard answer: without --yes only the count (a dry run), with --yes
 * the action. At most 10,000 per run.
 */
async function inBulk(action: DeadLetterAction, flags: Flags, ctx: Context) {
  const projectId = projectFlag(flags);
  const selection = deadLetterSelection({ tag: str(flags, "tag"), from: str(flags, "from"), to: str(flags, "to") });
  const dryRun = flags.yes !== true;
  await projectExists(ctx, projectId);
  const out = await deadLettersInBulk(ctx.db(), projectId, action, selection, dryRun);
  const done = action === "replay" ? "replayed" : "discarded";
  const text = dryRun
    ? `${out.count} dead letter(s) would be ${done}; run again with --yes to ${action} them`
    : `${out.count} dead letter(s) ${done}`;
  return { json: { ...out }, text };
}

export const resultCommands: Command[] = [
  {
    name: "trigger list",
    synopsis: "--project <id> [--status <s>] [--kind job|generator] [--tag <t>] [--custom-key <k>] [--generator <id>] [--limit <n>] [--cursor <c>]",
    summary: "a page of a project's triggers and recurring triggers, newest first",
    options: { project: s, status: s, kind: s, tag: s, "custom-key": s, generator: s, limit: s, cursor: s },
    async run(flags, ctx) {
      const projectId = projectFlag(flags);
      const flag = { kind: "kind", status: "status", generatorId: "generator", tag: "tag", customKey: "custom-key" } as const;
      const filter = triggerListFilter((name) => str(flags, flag[name]) ?? null);
      const [cursor, pageSize] = [cursorOf(flags), limit(str(flags, "limit"), DEFAULT_LIMIT, MAX_LIMIT)];
      await projectExists(ctx, projectId);
      const page = await triggerPage(ctx.db(), projectId, filter, cursor, pageSize);
      return { json: page, text: pageText(page.triggers.map(triggerLine), "no triggers", page.nextCursor) };
    },
  },
  {
    name: "trigger show",
    synopsis: "--project <id> --id <triggerId>",
    summary: "one trigger with its request and every execution",
    options: { project: s, id: s },
    async run(flags, ctx) {
      const [projectId, id] = [projectFlag(flags), uuid(str(flags, "id"), "id")];
      await projectExists(ctx, projectId);
      const out = await triggerWithExecutions(ctx.db(), projectId, id);
      const t = out.trigger;
      const text = [
        triggerLine(t),
        ...(t.title === null ? [] : [`  title: ${shown(t.title)}`]),
        ...Object.entries(t.headers).map(([name, value]) => `  ${shown(name)}: ${shown(value)}`),
        ...(t.body === null ? [] : [`  body: ${shown(t.body)}`]),
        ...out.executions.map(executionLine),
      ].join("\n");
      return { json: out, text };
    },
  },
  {
    name: "trigger cancel",
    synopsis: "--project <id> (--id <id> | --custom-key <key>)",
    summary: "cancel a trigger or recurring trigger, as DELETE /cancel does",
    options: { project: s, id: s, "custom-key": s },
    async run(flags, ctx) {
      const projectId = projectFlag(flags);
      const id = str(flags, "id");
      const customKey = str(flags, "custom-key");
      if ((id === undefined) === (customKey === undefined)) throw new UsageError("give either --id or --custom-key");
      const which = id !== undefined ? { triggerId: uuid(id, "id") } : { customKey: need(customKey, "custom-key") };
      await projectExists(ctx, projectId);
      await cancelOne(ctx.db(), projectId, which);
      return { json: { cancelled: true }, text: `cancelled ${shown(id ?? customKey ?? "")}` };
    },
  },
  {
    name: "dead-letters list",
    synopsis: "--project <id> [--trigger <id>] [--limit <n>] [--cursor <c>]",
    summary: "a page of a project's dead letters, newest first",
    options: { project: s, trigger: s, limit: s, cursor: s },
    async run(flags, ctx) {
      const projectId = projectFlag(flags);
      const triggerId = str(flags, "trigger") === undefined ? null : uuid(str(flags, "trigger"), "trigger");
      const [cursor, pageSize] = [cursorOf(flags), limit(str(flags, "limit"), DEFAULT_LIMIT, MAX_LIMIT)];
      await projectExists(ctx, projectId);
      const page = await executionPage(ctx.db(), projectId, { triggerId, deadLetterOnly: true }, cursor, pageSize);
      return { json: page, text: pageText(page.executions.map(executionLine), "no dead letters", page.nextCursor) };
    },
  },
  {
    name: "dead-letters replay",
    synopsis: `--project <id> (--trigger <triggerId> | ${BULK_SYNOPSIS})`,
    summary:
      "send a finished trigger's request again now (the dashboard's Replay now); or, without --trigger, every dead letter selected by tag and completion time that is still its trigger's latest attempt: prints the count, and replays them with --yes",
    options: { project: s, trigger: s, ...bulkOptions },
    async run(flags, ctx) {
      const trigger = str(flags, "trigger");
      if (trigger === undefined) return inBulk("replay", flags, ctx);
      if (["tag", "from", "to", "yes"].some((name) => flags[name] !== undefined)) throw new UsageError("give either --trigger or the bulk flags --tag, --from, --to, --yes");
      const [projectId, triggerId] = [projectFlag(flags), uuid(trigger, "trigger")];
      await projectExists(ctx, projectId);
      const execution = await sendAgain(ctx.db(), projectId, triggerId, "replay");
      return { json: { execution }, text: `replaying: ${executionLine(execution)}` };
    },
  },
  {
    name: "dead-letters discard",
    synopsis: `--project <id> ${BULK_SYNOPSIS}`,
    summary: "take the dead letters selected by tag and completion time off the dead-letter list (they stay dead letters in history): prints the count, and discards them with --yes",
    options: { project: s, ...bulkOptions },
    run: (flags, ctx) => inBulk("discard", flags, ctx),
  },
];
