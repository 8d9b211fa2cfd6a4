// CPU time and memory of processes, read from /proc (Linux). CPU is
// utime + stime in clock ticks (USER_HZ, 100 on Linux), reported in ms.
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10;

/** CPU ms used so far by a process (0 once it is gone). */
export function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may hold spaces, in parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime (fields 14, 15)
  } catch {
    return 0;
  }
}

/** VmRSS and VmHWM (peak RSS) in MB. */
export function memoryMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
  } catch {
    return { rss: Number.NaN, hwm: Number.NaN };
  }
}

/** Pids whose command name (comm) matches. */
export function pidsNamed(test) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (test(readFileSync(`/proc/${entry}/comm`, "utf8").trim())) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * A CPU meter over named groups of processes. A group given as a function
 * (sync or async) is re-resolved at each sample, since PostgreSQL backends
 * come and go; a process seen in only one sample counts from 0 or up to its
 * last value.
 * @param {Record<string, number[] | (() => number[] | Promise<number[]>)>} groups
 */
export async function cpuMeter(groups) {
  const sample = async () => {
    const out = {};
    for (const [name, pids] of Object.entries(groups)) {
      const list = typeof pids === "function" ? await pids() : pids;
      out[name] = new Map(list.map((pid) => [pid, cpuMs(pid)]));
    }
    return out;
  };
  let start = await sample();
  return {
    async reset() {
      start = await sample();
    },
    /** CPU ms per group since the last reset. */
    async read() {
      const end = await sample();
      const used = {};
      for (const name of Object.keys(groups)) {
        let ms = 0;
        for (const [pid, after] of end[name]) ms += after - (start[name].get(pid) ?? 0);
        used[name] = ms;
      }
      return used;
    },
  };
}

/** CPU ms of the whole machine (all cores) so far, from /proc/stat. */
export function machineCpuMs() {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const busy = line[0] + line[1] + line[2] + line[5] + line[6] + line[7];
  return busy * TICK_MS;
}

/**
 * The PostgreSQL processes working for one database: its backends, plus the
 * server's own background processes (WAL writer, checkpointer, …), which
 * work for every database. Redis: the server process.
 * @param {import("pg").Pool} db  a pool on the database
 */
export function serverGroups(db) {
  return {
    postgres: async () =>
      (await db.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() OR datname IS NULL")).rows.map((r) => r.pid),
    redis: () => pidsNamed((c) => c === "redis-server"),
  };
}
