// Summarizes V8 CPU profiles (node --cpu-prof; `npm run bench -- <scenario>
// --profile` writes them under .ttr/bench/profiles): where the busy time
// went, by library or file and by function.
// Usage: node test/bench/profile-summary.mjs <file.cpuprofile | dir> [top]
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** `pkg:<name>` for node_modules, repo-relative for ttr's code, as is for node: modules. */
function place(url) {
  if (!url) return "(native)";
  const nm = url.lastIndexOf("node_modules/");
  if (nm !== -1) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return `pkg:${rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith("node:")) return url;
  const m = /\/(services|packages)\/(.*)$/.exec(url);
  return m ? `${m[1]}/${m[2]}` : url.replace(/^file:\/\//, "");
}

const frame = (f) => `${f.functionName || "(anonymous)"} ${place(f.url)}:${f.lineNumber + 1}`;
const SPECIAL = { "(garbage collector)": "(gc)", "(program)": "(program)" };

function load(file) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map();
  const parent = new Map();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  // Self time per node (µs): each sample lasts until the next one.
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const ancestors = function* (id) {
    for (let at = id; at !== undefined; at = parent.get(at)) yield byId.get(at).callFrame;
  };
  return { byId, self, ancestors };
}

function add(map, key, us) {
  map.set(key, (map.get(key) ?? 0) + us);
}

export function summarize(file, top = 25) {
  const { byId, self, ancestors } = load(file);
  const bySelfPlace = new Map();
  const byCaller = new Map(); // native and node: time charged to the library or file that asked for it
  const byFunction = new Map();
  const natives = new Map();
  let busy = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const leaf = byId.get(id).callFrame;
    if (leaf.functionName === "(idle)") {
      idle += us;
      continue;
    }
    busy += us;
    const special = SPECIAL[leaf.functionName];
    add(bySelfPlace, special ?? place(leaf.url), us);
    add(byFunction, frame(leaf), us);
    let caller = special ?? null;
    const chain = [];
    for (const f of ancestors(id)) {
      if (caller === null && f.url && !f.url.startsWith("node:")) caller = place(f.url);
      if (!leaf.url && f.url && chain.length < 2 && (chain.length === 0 || !f.url.startsWith("node:"))) chain.push(`${f.functionName || "(anon)"}@${place(f.url)}:${f.lineNumber + 1}`);
    }
    add(byCaller, caller ?? "(node: internals with no caller on the stack: socket callbacks, timers)", us);
    if (!leaf.url && !special && leaf.functionName !== "(root)") add(natives, `${leaf.functionName} <- ${chain.join(" <- ") || "(no JS frame)"}`, us);
  }
  const pct = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const list = (title, map, n) => [`  ${title}:`, ...[...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `   ${pct(v)}  ${k}`)];
  return [
    `${path.basename(file)}: ${(busy / 1e6).toFixed(1)} s busy, ${(idle / 1e6).toFixed(1)} s idle`,
    ...list("by library or file, native and node: time charged to its caller", byCaller, 15),
    ...list("by library or file (self time)", bySelfPlace, 12),
    ...list("by function (self time)", byFunction, top),
    ...list("native functions, by the JS frames that called them (nearest <- first outside node:)", natives, 10),
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = process.argv[2];
  if (!target) {
    console.error("usage: node test/bench/profile-summary.mjs <file.cpuprofile | dir> [top]");
    process.exit(2);
  }
  const files = statSync(target).isDirectory() ? readdirSync(target).filter((f) => f.endsWith(".cpuprofile")).map((f) => path.join(target, f)) : [target];
  for (const f of files) console.log(`${summarize(f, Number(process.argv[3] ?? 25))}\n`);
}
