#!/usr/bin/env node
// The admin CLI (docs/cli.md): `ttr <command> [flags]`, `npm run ttr -- …`
// from a clone. With --json a command prints exactly one JSON object on
// stdout. --help prints usage on stdout and exits 0; a mistake in the call
// (unknown command or flag, a missing or malformed value) prints usage on
// stderr and exits 2; a command that fails says why on stderr and exits 1.
import { parseArgs } from "node:util";
import { ApiError } from "@ttr/core";
import { createDb, type Db } from "@ttr/db";
import { databaseUrl, UsageError } from "./args.js";
import type { Command, Context } from "./command.js";
import { adminCommands } from "./commands/admin.js";
import { resultCommands } from "./commands/results.js";
import { reason } from "./failure.js";
import { shown, terminalSafe } from "./output.js";

const COMMANDS: Command[] = [...adminCommands, ...resultCommands];

const line = (c: Command) => `ttr ${c.name}${c.synopsis ? ` ${c.synopsis}` : ""} [--json]`;

function usage(commands: Command[] = COMMANDS): string {
  // the summaries start two spaces after the longest command name
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  const rows = commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
  return [
    "usage: ttr <command> [flags]        (from a clone: npm run ttr -- <command> [flags])",
    "",
    "commands:",
    ...rows,
    "",
    "Every command takes --json (print exactly one JSON object) and --help (its own flags).",
    "DATABASE_URL selects the database (default: the one `npm start` uses).",
  ].join("\n");
}

const commandUsage = (c: Command) => `usage: ${line(c)}\n\n${c.summary}`;

/** The command named by the leading words of argv, and the rest. */
function findCommand(argv: string[]): { command?: Command; words: string[]; rest: string[] } {
  const words: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith("-")) break;
    words.push(arg);
  }
  for (const n of [2, 1]) {
    const command = COMMANDS.find((c) => c.name === words.slice(0, n).join(" "));
    if (command && words.length >= n) return { command, words, rest: argv.slice(n) };
  }
  return { words, rest: argv.slice(words.length) };
}

class Printed {
  constructor(
    readonly stdout: string,
    readonly code: number,
    readonly stderr = "",
  ) {}
}

async function run(argv: string[]): Promise<Printed> {
  const { command, words, rest } = findCommand(argv[0] === "help" ? [...argv.slice(1), "--help"] : argv);
  const help = rest.includes("--help") || rest.includes("-h");
  if (!command) {
    const group = COMMANDS.filter((c) => words.length > 0 && c.name.startsWith(`${words[0]} `));
    if (words.length === 0 && help) return new Printed(`${usage()}\n`, 0);
    if (words.length === 1 && group.length > 0 && help) return new Printed(`${usage(group)}\n`, 0);
    return new Printed("", 2, `ttr: ${noCommand(words, rest)}\n\n${usage(group.length > 0 ? group : COMMANDS)}\n`);
  }
  if (help) return new Printed(`${commandUsage(command)}\n`, 0);

  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: withDashValues(rest, command),
      allowPositionals: false,
      strict: true,
      options: { ...command.options, json: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
    }));
  } catch (err) {
    return new Printed("", 2, `ttr: ${terminalSafe((err as Error).message)}\n\n${commandUsage(command)}\n`);
  }

  let db: Db | undefined;
  let url: string | null = null;
  const ctx: Context = {
    databaseUrl: () => (url ??= databaseUrl()),
    db: () => (db ??= createDb(ctx.databaseUrl(), { max: 2, applicationName: "ttr-cli" })),
  };
  try {
    const out = await command.run(values, ctx);
    return new Printed(values.json ? `${JSON.stringify(out.json)}\n` : `${terminalSafe(out.text)}\n`, 0);
  } catch (err) {
    // a malformed value the shared checks refused (a status, a cursor, a date) is a usage error too
    const malformed = err instanceof ApiError && err.tag === "BadRequest";
    if (err instanceof UsageError || malformed) return new Printed("", 2, `ttr: ${shown((err as Error).message)}\n\n${commandUsage(command)}\n`);
    return new Printed("", 1, `ttr: ${reason(err, url)}\n`);
  } finally {
    await db?.$disconnect();
  }
}

/** Why argv names no command: an unknown one, a flag before any, or nothing at all. */
function noCommand(words: string[], rest: string[]): string {
  if (words.length > 0) return `unknown command: ${words.join(" ")}`;
  const flag = rest[0];
  if (flag === undefined) return "no command given";
  if (flag === "--json") return "--json goes after the command (ttr <command> … --json)";
  return `unknown flag: ${flag}`;
}

/**
 * `--quota -1` as `--quota=-1`: parseArgs refuses a value that starts with a
 * dash as ambiguous, and the command's own check then says what values it
 * takes. Only string flags take a value, and never a `--flag` (-h printed
 * the help before this).
 */
function withDashValues(args: string[], command: Command): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    const takesValue = arg.startsWith("--") && command.options[arg.slice(2)]?.type === "string";
    if (takesValue && next !== undefined && /^-[^-]/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

run(process.argv.slice(2)).then((out) => {
  // stdout closed early (`ttr trigger list | head`): nothing more is wanted, and that is no failure
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
  process.exitCode = out.code;
  process.stdout.write(out.stdout);
  process.stderr.write(out.stderr);
});
