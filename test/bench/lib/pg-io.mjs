// Reads from outside PostgreSQL's shared buffers during a window
// (large-state).
//
// A block read from outside shared buffers comes from the OS page cache or,
// when the machine no longer holds it there, from the disk; the time spent
// reading tells the two apart. It is counted only while `track_io_timing`
// is on, which the bench sets for its own databases (a setting of that
// database, dropped with it), never for the server.

/** The UTC day of `ms`, as YYYY-MM-DD. */
export const utcDay = (ms) => new Date(ms).toISOString().slice(0, 10);

/** Turns on read timing for the sessions of this database that start from now on; false when not allowed. */
export async function timeReads(db) {
  const { rows } = await db.query("SELECT current_database() AS name");
  const name = rows[0].name.replaceAll('"', '""');
  return db.query(`ALTER DATABASE "${name}" SET track_io_timing = on`).then(() => true, () => false);
}

/** This database's counters of blocks read from outside shared buffers, and of the time spent reading them (ms). */
export async function readsMark(db) {
  const { rows } = await db.query("SELECT blks_read::float8 AS blocks, blk_read_time::float8 AS ms FROM pg_stat_database WHERE datname = current_database()");
  return rows[0];
}

/** Blocks read and read time (ms) since `mark`, per fired one-shot and per second of `wallMs`. */
export async function readsSince(db, mark, fired, wallMs) {
  const now = await readsMark(db);
  const blocks = now.blocks - mark.blocks;
  const ms = now.ms - mark.ms;
  return { blocksPerFire: blocks / fired, readMsPerS: (1000 * ms) / wallMs, msPerBlock: blocks > 0 ? ms / blocks : Number.NaN };
}
