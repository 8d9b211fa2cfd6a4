// API key authentication (SPEC §5). Keys are looked up by their hash.
import { invalidApiKey, sha256Hex } from "@ttr/core";
import { findProjectByKeyHash, type ProjectRow, type SqlRunner } from "@ttr/db";

export async function projectForKey(db: SqlRunner, key: string): Promise<ProjectRow> {
  if (key === "") throw invalidApiKey();
  const project = await findProjectByKeyHash(db, sha256Hex(key));
  if (!project) throw invalidApiKey();
  return project;
}
