import type { Db, PgRunner } from "@ttr/db";
import type { Logger, prom } from "@ttr/platform";
import type { Redis } from "ioredis";

/** What the api's routes need, built once in main.ts (or by a test). */
export interface Deps {
  db: Db;
  /** plain pg pool with prepared statements, for the statements of the hottest path (/schedule) */
  pg: PgRunner;
  redis: Redis;
  log: Logger;
  registry: prom.Registry;
}
