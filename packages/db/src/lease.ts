// The scheduler lease (RELIABILITY.md, "Leadership"): which replica is the
// active scheduler, for how long, and under which epoch. Acquire and renew
// run on the replica's own leadership connection (acquire records that
// connection's server process); the check runs inside each of the active
// replica's transactions.
import { execute, queryOne, type SqlRunner } from "./sql.js";

/** The active scheduler's transactions ran without a valid lease: they must roll back. */
export class LeaseLost extends Error {
  constructor(epoch: string) {
    super(`the scheduler lease of epoch ${epoch} is no longer held`);
    this.name = "LeaseLost";
  }
}

/** Takes the lease if it is free; returns its new epoch, or null. */
export async function acquireLease(db: SqlRunner, holder: string, leaseMs: number): Promise<string | null> {
  return (await queryOne<{ epoch: string }>(db, "lease_acquire", holder, leaseMs))?.epoch ?? null;
}

/** Extends the lease of `epoch`; false when it was lost (expired or taken over). */
export async function renewLease(db: SqlRunner, epoch: string, leaseMs: number): Promise<boolean> {
  return (await queryOne(db, "lease_renew", epoch, leaseMs)) !== undefined;
}

/** Throws LeaseLost unless the lease of `epoch` is held; share-locks it for the rest of `tx`. */
export async function checkLease(tx: SqlRunner, epoch: string): Promise<void> {
  if ((await queryOne(tx, "lease_check", epoch)) === undefined) throw new LeaseLost(epoch);
}

export async function releaseLease(db: SqlRunner, epoch: string): Promise<void> {
  await execute(db, "lease_release", epoch);
}
