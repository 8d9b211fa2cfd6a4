// Commands that set a deployment up: the schema, projects and their quota,
// API keys, dashboard users, and removing old history now. Each command
// reads and checks all its flags (and the password) into locals before it
// calls ctx.db() or ctx.databaseUrl(), so a mistake in the call is a usage
// error (exit 2) even where no database is configured.
import { randomBytes } from "node:crypto";
import {
  applyMigrations,
  clientRunner,
  createApiKey,
  createDatabaseIfMissing,
  createProject,
  createUser,
  defaultMonthlyQuota,
  ensurePartitions,
  ensureSigningSecret,
  findApiKey,
  hasSigningSecret,
  listApiKeys,
  MAX_RETENTION_DAYS,
  prune,
  resealSigningSecrets,
  revokeApiKey,
  rotateSigningSecret,
  setProjectQuota,
  setUserPassword,
  signingSecretKeyIds,
  withPgClient,
} from "@ttr/db";
import { PREVIOUS_SECRET_SIGNS_HOURS } from "@ttr/core";
import { count, emailAddress, type KeysInUse, need, password, quota, secretKeysOrNull, UsageError, uuid } from "../args.js";
import { type Command, type Context, str } from "../command.js";
import { projectExists } from "./project.js";

const s = { type: "string" } as const;

/**
 * `prune`'s days: the flag (a usage error when bad), else TTR_RETENTION_DAYS
 * (an error naming the variable when bad, as the scheduler gives), else 30.
 */
function retentionDays(flag: string | undefined, variable: string | undefined): number {
  const range = `a whole number from 0 to ${MAX_RETENTION_DAYS}`;
  if (flag !== undefined) {
    const days = count(flag, "older-than-days");
    if (days > MAX_RETENTION_DAYS) throw new UsageError(`--older-than-days must be ${range}`);
    return days;
  }
  if (variable === undefined) return 30;
  // read as the scheduler reads it: a number that is whole (`7.0`, `1e1` too); set but empty is no number
  // a decimal number only: Number() alone would also take 0x10 and 0b11, which the scheduler refuses
  const days = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(variable) ? Number(variable) : Number.NaN;
  if (!Number.isInteger(days) || days < 0 || days > MAX_RETENTION_DAYS) throw new Error(`TTR_RETENTION_DAYS must be ${range}, not ${JSON.stringify(variable)}`);
  return days;
}

/**
 * Refuses to seal a new signing secret with a key that did not seal the
 * ones stored: the executors of this database open secrets with their own
 * TTR_SECRET_KEY, and would never sign for a project whose secret another
 * key sealed (a clone's own key, say). During a rotation the previous key
 * may have sealed them.
 */
async function checkSealingKey(ctx: Context, { keys, source }: KeysInUse): Promise<void> {
  const inUse = [keys.current.id, keys.previous?.id];
  const foreign = (await signingSecretKeyIds(ctx.db())).filter((id) => !inUse.includes(id));
  if (foreign.length === 0) return;
  throw new Error(
    `this database's signing secrets are sealed with key ${foreign.join(", ")}, but the key in use (${source}) is ${keys.current.id}: ` +
      "give the TTR_SECRET_KEY the executors have (and, while rotating it, the old one as TTR_SECRET_KEY_PREVIOUS)",
  );
}

/** `apikey revoke`'s key: --id or --key, exactly one of them. */
function keyToRevoke(id: string | undefined, apiKey: string | undefined): { id: string } | { apiKey: string } {
  if ((id === undefined) === (apiKey === undefined)) throw new UsageError("give either --id or --key");
  if (id !== undefined) return { id: uuid(id, "id") };
  if (!need(apiKey, "key").startsWith("ttr_")) throw new UsageError("--key must be an API key (ttr_…)");
  return { apiKey: apiKey! };
}

export const adminCommands: Command[] = [
  {
    name: "migrate",
    synopsis: "",
    summary: "create the database if needed and apply the migrations",
    options: {},
    async run(_flags, ctx) {
      const url = ctx.databaseUrl();
      await createDatabaseIfMissing(url);
      const { applied } = await applyMigrations(url);
      await withPgClient(url, (c) => ensurePartitions(clientRunner(c), new Date()), "ttr-cli");
      // After TTR_SECRET_KEY changed: secrets sealed with the previous key are
      // sealed again with the new one. This comes after the migrations (the
      // table may be new), so a failure here leaves the schema migrated.
      const inUse = secretKeysOrNull();
      let resealed = 0;
      try {
        resealed = inUse ? await resealSigningSecrets(ctx.db(), inUse.keys) : 0;
      } catch (err) {
        const done = applied.length ? applied.join(", ") : "none were due";
        throw new Error(`the migrations were applied (${done}), but the signing secrets were not re-sealed: ${(err as Error).message}`);
      }
      const text = [applied.length ? `applied ${applied.join(", ")}` : "database is up to date", ...(resealed ? [`re-sealed the signing secrets of ${resealed} project(s)`] : [])];
      return { json: { ok: true }, text: text.join("\n") };
    },
  },
  {
    name: "prune",
    synopsis: "[--older-than-days <n>]",
    summary: "remove finished history now (default: TTR_RETENTION_DAYS, else 30; 0 keeps everything)",
    options: { "older-than-days": s },
    async run(flags, ctx) {
      const days = retentionDays(str(flags, "older-than-days"), process.env.TTR_RETENTION_DAYS);
      const r = await prune(ctx.databaseUrl(), { olderThanDays: days, lockWaitMs: 120_000 });
      if (r.locked) throw new Error("another retention pass (a scheduler's, or another ttr prune) held the retention lock for 2 minutes; nothing was removed, try again later");
      if (r.deferred > 0) {
        process.stderr.write(
          `ttr: ${r.deferred} day(s) past the cutoff were left for the next pass: transactions that began before this pass were still open (or their rows busy)\n`,
        );
      }
      const text =
        days === 0 ? "retention is 0 days: everything is kept" : `removed ${r.triggers} triggers and ${r.executions} executions (${r.partitions} day partitions)`;
      return { json: { executions: r.executions, triggers: r.triggers }, text };
    },
  },
  {
    name: "project create",
    synopsis: "--name <name> [--quota <n>]",
    summary: "create a project and its first API key (shown once)",
    options: { name: s, quota: s },
    async run(flags, ctx) {
      const name = need(str(flags, "name"), "name");
      const monthlyQuota = quota(str(flags, "quota"), () => defaultMonthlyQuota(process.env));
      const out = await createProject(ctx.db(), name, monthlyQuota);
      return { json: out, text: `project ${out.projectId}\napi key ${out.apiKey} (shown once)` };
    },
  },
  {
    name: "project set-quota",
    synopsis: "--project <id> --quota <n>",
    summary: "set a project's monthly quota",
    options: { project: s, quota: s },
    async run(flags, ctx) {
      const projectId = uuid(str(flags, "project"), "project");
      const monthlyQuota = quota(str(flags, "quota"));
      if (!(await setProjectQuota(ctx.db(), projectId, monthlyQuota))) throw new Error("project not found");
      return { json: { projectId, monthlyQuota }, text: `project ${projectId} quota ${monthlyQuota}` };
    },
  },
  {
    name: "project signing-secret",
    synopsis: "--project <id> [--rotate]",
    summary: `the project's webhook signing secret, made if missing; --rotate: a new one, the old one signs beside it for ${PREVIOUS_SECRET_SIGNS_HOURS} h`,
    options: { project: s, rotate: { type: "boolean" } },
    async run(flags, ctx) {
      const projectId = uuid(str(flags, "project"), "project");
      const inUse = secretKeysOrNull();
      if (!inUse) {
        const fileToo = process.env.DATABASE_URL ? " (the key `npm start` made is used only with its own database, when DATABASE_URL is unset)" : "";
        throw new Error(`TTR_SECRET_KEY is not set: signing secrets are stored sealed with it (docs/delivery-extras.md)${fileToo}`);
      }
      // only a new secret is sealed: one that exists opens with the key that sealed it, or fails saying which
      if (flags.rotate || !(await hasSigningSecret(ctx.db(), projectId))) await checkSealingKey(ctx, inUse);
      const { keys } = inUse;
      const out = flags.rotate ? await rotateSigningSecret(ctx.db(), keys, projectId) : await ensureSigningSecret(ctx.db(), keys, projectId);
      const previous = out.previous === null ? "" : `\nprevious ${out.previous} (still signs)`;
      return { json: { secret: out.secret, previous: out.previous }, text: `secret ${out.secret}${previous}` };
    },
  },
  {
    name: "apikey create",
    synopsis: "--project <id>",
    summary: "a new API key for a project (shown once)",
    options: { project: s },
    async run(flags, ctx) {
      const projectId = uuid(str(flags, "project"), "project");
      const out = await createApiKey(ctx.db(), projectId);
      return { json: out, text: `api key ${out.apiKeyId}: ${out.apiKey} (shown once)` };
    },
  },
  {
    name: "apikey list",
    synopsis: "--project <id>",
    summary: "a project's API keys, oldest first: id, created, revoked (never the keys themselves)",
    options: { project: s },
    async run(flags, ctx) {
      const projectId = uuid(str(flags, "project"), "project");
      await projectExists(ctx, projectId);
      const keys = await listApiKeys(ctx.db(), projectId);
      const apiKeys = keys.map((k) => ({ id: k.id, createdAt: k.createdAt.toISOString(), revokedAt: k.revokedAt?.toISOString() ?? null }));
      const lines = apiKeys.map((k) => `${k.id}\tcreated ${k.createdAt}\t${k.revokedAt === null ? "active" : `revoked ${k.revokedAt}`}`);
      return { json: { apiKeys }, text: lines.length ? lines.join("\n") : "no api keys" };
    },
  },
  {
    name: "apikey revoke",
    synopsis: "(--id <apiKeyId> | --key <ttr_…>)",
    summary: "revoke an API key, by its id or the key itself; it answers 401 Invalid api key from then on (revoking it again changes nothing)",
    options: { id: s, key: s },
    async run(flags, ctx) {
      const which = keyToRevoke(str(flags, "id"), str(flags, "key"));
      const key = await findApiKey(ctx.db(), which);
      if (key === null) throw new Error("api key not found");
      // a retried call finds the key revoked already: that is what it asked for
      const already = key.revokedAt !== null || !(await revokeApiKey(ctx.db(), key.id));
      return { json: { revoked: true }, text: `api key ${key.id} ${already ? "was revoked already" : "revoked"}` };
    },
  },
  {
    name: "user create",
    synopsis: "--project <id> --email <e> [--password <p>]",
    summary: "a dashboard user (without --password, the password is read from stdin)",
    options: { project: s, email: s, password: s },
    async run(flags, ctx) {
      const projectId = uuid(str(flags, "project"), "project");
      const email = emailAddress(str(flags, "email"));
      const secret = await password(str(flags, "password"));
      const out = await createUser(ctx.db(), projectId, email, secret);
      return { json: out, text: `user ${out.userId}` };
    },
  },
  {
    name: "user set-password",
    synopsis: "--email <e> [--password <p>]",
    summary: "a new password (from stdin without --password); ends the user's sessions",
    options: { email: s, password: s },
    async run(flags, ctx) {
      const email = need(str(flags, "email"), "email");
      const secret = await password(str(flags, "password"));
      const out = await setUserPassword(ctx.db(), email, secret);
      if (!out) throw new Error(`no user with email ${email}`);
      return { json: out, text: `user ${out.userId}: password set, ${out.sessionsEnded} session(s) ended` };
    },
  },
  {
    name: "user reset-password",
    synopsis: "--email <e>",
    summary: "a new random password, printed once; ends the user's sessions",
    options: { email: s },
    async run(flags, ctx) {
      const email = need(str(flags, "email"), "email");
      // 18 random bytes: 24 URL-safe characters, 144 bits
      const fresh = randomBytes(18).toString("base64url");
      const out = await setUserPassword(ctx.db(), email, fresh);
      if (!out) throw new Error(`no user with email ${email}`);
      return {
        json: { ...out, password: fresh },
        text: `user ${out.userId}: new password ${fresh} (shown once), ${out.sessionsEnded} session(s) ended`,
      };
    },
  },
];
