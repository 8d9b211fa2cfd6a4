// What a CLI command is: its name, how it is called, and what it prints.
import type { Db } from "@ttr/db";

export type Flags = Record<string, string | boolean | undefined>;

/** What a command prints: `json` with --json (exactly one object), `text` otherwise. */
export interface Output {
  json: Record<string, unknown>;
  text: string;
}

export interface Context {
  /** the database to use: DATABASE_URL, else the one `npm start` recorded */
  databaseUrl(): string;
  /** a connection pool to it, opened at first use and closed when the command ends */
  db(): Db;
}

export interface Command {
  /** one or two words, e.g. `trigger list` */
  name: string;
  /** the flags, as shown in usage */
  synopsis: string;
  /** what it does, one line */
  summary: string;
  /** its flags (besides --json and --help, which every command takes) */
  options: Record<string, { type: "string" | "boolean" }>;
  run(flags: Flags, ctx: Context): Promise<Output>;
}

/** A string flag's value (parseArgs gives strings for string options). */
export const str = (flags: Flags, name: string): string | undefined => flags[name] as string | undefined;
