// What the figures were measured on: machine, versions, database settings.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { databaseUrl } from "@ttr/platform";
import { root } from "./infra.mjs";

/** The installed version of a package, looked up where ttr's packages resolve it. */
function version(pkg) {
  for (const dir of [root, path.join(root, "packages", "db"), path.join(root, "services", "executor")]) {
    try {
      return JSON.parse(readFileSync(path.join(dir, "node_modules", pkg, "package.json"), "utf8")).version;
    } catch {
      // not installed there
    }
  }
  return "?";
}

function git(args) {
  try {
    return execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "";
  }
}

export async function describeEnvironment(ctx) {
  const client = new pg.Client({ connectionString: databaseUrl(ctx.pgServerUrl, "postgres") });
  await client.connect();
  const pgVersion = (await client.query("SHOW server_version")).rows[0].server_version;
  const settings = (
    await client.query("SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers','synchronous_commit','fsync','max_connections','work_mem')")
  ).rows.map((r) => `${r.name}=${r.setting}${r.unit ? ` ${r.unit}` : ""}`);
  await client.end();
  const redis = new Redis(ctx.redisUrl);
  const info = await redis.info("server");
  redis.disconnect();
  const osRelease = (() => {
    try {
      return /^PRETTY_NAME="?([^"\n]*)/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1] ?? os.type();
    } catch {
      return os.type();
    }
  })();
  const commit = git(["rev-parse", "--short", "HEAD"]);
  const dirty = git(["status", "--porcelain", "--", "services", "packages", "prisma"]) !== "";
  return {
    cpu: `${os.cpus()[0]?.model ?? "?"} × ${os.cpus().length}`,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    os: `${osRelease}, Linux ${os.release()}`,
    node: process.version,
    postgres: `${pgVersion} (${settings.join(", ")})`,
    redis: /redis_version:(\S+)/.exec(info)?.[1] ?? "?",
    packages: ["bullmq", "got", "express", "autocannon", "pg", "ioredis", "@prisma/client"].map((p) => `${p} ${version(p)}`).join(", "),
    commit: commit ? `${commit}${dirty ? " with uncommitted changes in services/packages/prisma" : ""}` : "?",
  };
}
