// Reading what PostgreSQL wrote to its WAL between two positions with
// `pg_waldump`: by record type (`--stats=record`) and by the relation each
// record's first block belongs to. It needs the server's data directory on
// this machine, readable by this process (wal-records.mjs, and the
// large-state bench when it runs as a user that can read it).
import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import path from "node:path";

/** pg_waldump of the server's major version: Debian's, else the one on PATH. */
export function waldump(version) {
  const debian = `/usr/lib/postgresql/${version}/bin/pg_waldump`;
  return existsSync(debian) ? debian : "pg_waldump";
}

/** `pg_waldump --stats=record` between two LSNs, as {type, count, bytes, fpiBytes} rows. */
export function recordStats(bin, walDir, from, to) {
  const out = execFileSync(bin, ["-p", walDir, "-s", from, "-e", to, "--stats=record"], { encoding: "utf8", maxBuffer: 1e8 });
  const rows = [];
  for (const line of out.split("\n")) {
    // type, N (%), record size (%), FPI size (%), combined size (%)
    const m = line.match(/^(\S+)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)\s+\(\s*[\d.]+\)\s+(\d+)/);
    if (m) rows.push({ type: m[1], count: Number(m[2]), bytes: Number(m[5]), fpiBytes: Number(m[4]) });
  }
  return rows;
}

/**
 * ttr's relations in the current database by their file: "index <name>"
 * for indexes, partitions under their parent's name, TOAST as "toast".
 */
export const FILES = `
SELECT c.relfilenode::text AS file,
       CASE WHEN c.relkind IN ('i', 'I') THEN 'index ' || coalesce(pi.relname, c.relname)
            WHEN c.relkind = 't' THEN 'toast' ELSE coalesce(pt.relname, c.relname) END AS name
FROM pg_class c
LEFT JOIN pg_inherits ih ON ih.inhrelid = c.oid
LEFT JOIN pg_class pt ON pt.oid = ih.inhparent AND c.relkind = 'r'
LEFT JOIN pg_class pi ON pi.oid = ih.inhparent AND c.relkind = 'i'
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relfilenode <> 0
  AND (n.nspname = current_schema() OR c.oid IN (SELECT t.reltoastrelid FROM pg_class t JOIN pg_namespace tn ON tn.oid = t.relnamespace WHERE tn.nspname = current_schema()))`;

/**
 * Bytes and records between two LSNs by relation and record type: each
 * record counts for the relation of its first block (an UPDATE that moves
 * a row names the new page first), "(other)" for any other relation
 * (PostgreSQL's catalogs, as the test database is created), or "(none)".
 * `fpiBytes`: what full-page images added to those records (a record's
 * total length less its own).
 */
export function byRelation(bin, walDir, from, to, names) {
  const out = execFileSync(bin, ["-p", walDir, "-s", from, "-e", to], { encoding: "utf8", maxBuffer: 4e9 });
  const rows = new Map();
  for (const line of out.split("\n")) {
    const m = line.match(/^rmgr: (\S+)\s+len \(rec\/tot\):\s+(\d+)\/\s*(\d+).*?desc: (\S+)/);
    if (!m) continue;
    const block = line.match(/blkref #0: rel \d+\/\d+\/(\d+)/);
    const relation = block ? (names.get(block[1]) ?? "(other)") : "(none)";
    const key = `${relation}\t${m[1]} ${m[4]}`;
    const row = rows.get(key) ?? { relation, type: `${m[1]} ${m[4]}`, count: 0, bytes: 0, fpiBytes: 0 };
    row.count += 1;
    row.bytes += Number(m[3]);
    row.fpiBytes += Number(m[3]) - Number(m[2]);
    rows.set(key, row);
  }
  return [...rows.values()];
}

/**
 * The window's WAL by what wrote it, per fire, when this process can read
 * the server's WAL files (it runs on the server's machine as a user allowed
 * into its data directory; null otherwise): the bytes of full-page images,
 * the relations that wrote most, with their full-page images, and the
 * record types that carried those images. Server
 * wide, like the window's WAL figure: a relation of another database is
 * "(other)".
 */
export async function walSplit(db, from, to, fired) {
  let walDir;
  let version;
  try {
    walDir = path.join((await db.query("SHOW data_directory")).rows[0].data_directory, "pg_wal");
    version = (await db.query("SHOW server_version_num")).rows[0].server_version_num.slice(0, -4);
    accessSync(walDir, constants.R_OK);
  } catch {
    return null;
  }
  const names = new Map((await db.query(FILES)).rows.map((r) => [r.file, r.name]));
  let detail;
  try {
    detail = byRelation(waldump(version), walDir, from, to, names);
  } catch (err) {
    return { error: String(err.message).slice(0, 300) };
  }
  const per = (n) => Math.round(n / fired);
  const relations = new Map();
  for (const row of detail) {
    const r = relations.get(row.relation) ?? { relation: row.relation, bytes: 0, fpiBytes: 0 };
    r.bytes += row.bytes;
    r.fpiBytes += row.fpiBytes;
    relations.set(row.relation, r);
  }
  const top = [...relations.values()].sort((a, b) => b.bytes - a.bytes).slice(0, 10);
  return {
    fpiPerFire: per(detail.reduce((a, r) => a + r.fpiBytes, 0)),
    relations: top.map((r) => ({ relation: r.relation, perFire: per(r.bytes), fpiPerFire: per(r.fpiBytes) })),
    // which records carried the full-page images
    fpiRecords: detail
      .filter((r) => r.fpiBytes > 0)
      .sort((a, b) => b.fpiBytes - a.fpiBytes)
      .slice(0, 8)
      .map((r) => ({ relation: r.relation, type: r.type, count: r.count, fpiPerFire: per(r.fpiBytes) })),
  };
}
