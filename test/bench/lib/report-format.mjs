// Formatting shared by the report's sections: every figure is the median of
// the runs with min–max beside it, tables are Markdown.

export const isAgg = (v) => v && typeof v === "object" && "median" in v;

/** `median (min–max)`; a single value when they agree or there was one run. */
export function fmt(v, digits = 0, unit = "") {
  const num = (x) => (digits === 0 && Math.abs(x) >= 10_000 ? Math.round(x).toLocaleString("en-US") : x.toFixed(digits));
  if (v === undefined || v === null) return "–";
  if (typeof v === "number") return Number.isFinite(v) ? `${num(v)}${unit}` : "–";
  if (!isAgg(v) || v.n === 0) return "–";
  const f = (x) => (Number.isFinite(x) ? num(x) : "∞");
  if (v.n === 1 || f(v.min) === f(v.max)) return `${f(v.median)}${unit}`;
  return `${f(v.median)}${unit} (${f(v.min)}–${f(v.max)})`;
}

export const ms = (v) => fmt(v, 0, " ms");
export const med = (v) => (isAgg(v) ? v.median : v);
export const worst = (v) => (isAgg(v) ? v.max : v);

export function table(head, rows) {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}
