import type { Db } from "@ttr/db";
import type { Logger, prom } from "@ttr/platform";
import type { Redis } from "ioredis";

/** What the api's routes need, built once in main.ts (or by a test). */
export interface Deps {
  db: Db;
  redis: Redis;
  log: Logger;
  registry: prom.Registry;
}
