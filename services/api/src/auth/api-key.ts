// API key authentication (docs/api/README.md). Keys are looked up by their hash.
import { invalidApiKey, sha256Hex } from "@ttr/core";
import { findProjectByKeyHash, isDatabaseUnavailable, type ProjectRow, type SqlRunner } from "@ttr/db";
import { Batcher, KeyedBatchers } from "@ttr/platform";

type Lookup = (keyHash: string) => Promise<ProjectRow | undefined>;

/** docs/api/README.md: an empty or unknown key is `Invalid api key`. */
async function projectOf(key: string, lookup: Lookup): Promise<ProjectRow> {
  if (key === "") throw invalidApiKey();
  const project = await lookup(sha256Hex(key));
  if (!project) throw invalidApiKey();
  return project;
}

export function projectForKey(db: SqlRunner, key: string): Promise<ProjectRow> {
  return projectOf(key, (hash) => findProjectByKeyHash(db, hash));
}

/**
 * Key lookups for the busiest endpoint: calls with the same key that arrive
 * while a lookup of it runs share the next one. Nothing is cached: every
 * answer comes from a query sent after the call arrived, so a revoked key
 * fails from the moment its revocation commits.
 */
export class ApiKeys {
  private readonly lookups: KeyedBatchers<null, ProjectRow | undefined>;

  constructor(db: SqlRunner) {
    this.lookups = new KeyedBatchers((hash) => {
      const lookup = async (calls: null[]) => {
        const project = await findProjectByKeyHash(db, hash);
        return calls.map(() => project);
      };
      // PostgreSQL unreachable or silent: the calls waiting behind a failed
      // lookup answer 503 with it, rather than each waiting as long again.
      return new Batcher(lookup, { maxBatch: 10_000, parallel: 1, failWaiting: isDatabaseUnavailable });
    });
  }

  project(key: string): Promise<ProjectRow> {
    return projectOf(key, (hash) => this.lookups.call(hash, null));
  }
}
