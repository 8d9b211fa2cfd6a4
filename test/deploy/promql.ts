// PromQL as the chart's alerts and dashboard use it: parsed with Prometheus's
// own grammar (@prometheus-io/lezer-promql), and checked against what ttr's
// services really export on /metrics.
import { parser } from "@prometheus-io/lezer-promql";

export interface Reference {
  /** a series name as written: `ttr_fire_lateness_seconds_bucket` */
  metric: string;
  /** label names in its matchers */
  labels: string[];
}

export interface Parsed {
  /** where the parser found no valid PromQL: the text it choked on */
  errors: string[];
  selectors: Reference[];
  /** label names of `by (…)` / `without (…)` clauses */
  grouping: string[];
}

/** Grafana's variables, replaced with what Grafana would send to Prometheus. */
export function expandGrafanaVariables(expr: string, namespace: string): string {
  return expr
    .replaceAll("$__rate_interval", "5m")
    .replaceAll("$__interval", "1m")
    .replaceAll("$namespace", namespace);
}

export function parsePromQL(expr: string): Parsed {
  const out: Parsed = { errors: [], selectors: [], grouping: [] };
  const tree = parser.parse(expr);
  tree.iterate({
    enter(n) {
      if (n.type.isError) out.errors.push(`${JSON.stringify(expr.slice(n.from, n.to + 10))} at ${n.from}`);
      if (n.name === "VectorSelector") {
        const node = n.node;
        const id = node.getChild("Identifier");
        const labels: string[] = [];
        const matchers = node.getChild("LabelMatchers");
        if (matchers) {
          const c = matchers.cursor();
          c.iterate((m) => {
            if (m.name === "LabelName") labels.push(expr.slice(m.from, m.to));
          });
        }
        out.selectors.push({ metric: id ? expr.slice(id.from, id.to) : "", labels });
      }
      if (n.name === "GroupingLabels") {
        const c = n.node.cursor();
        c.iterate((m) => {
          if (m.name === "LabelName") out.grouping.push(expr.slice(m.from, m.to));
        });
      }
    },
  });
  return out;
}

/** One scrape of /metrics: the families and their types, and the label names seen per series name. */
export interface Exposition {
  types: Map<string, string>;
  labels: Map<string, Set<string>>;
  values: Map<string, number[]>;
}

export function parseExposition(text: string, into?: Exposition): Exposition {
  const e = into ?? { types: new Map(), labels: new Map(), values: new Map() };
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      e.types.set(type[1]!, type[2]!);
      continue;
    }
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)/.exec(line);
    if (!m) continue;
    const names = e.labels.get(m[1]!) ?? new Set<string>();
    for (const pair of (m[3] ?? "").matchAll(/([a-zA-Z_]\w*)="/g)) names.add(pair[1]!);
    e.labels.set(m[1]!, names);
    e.values.set(m[1]!, [...(e.values.get(m[1]!) ?? []), Number(m[4])]);
  }
  return e;
}

/** Whether a series name is exported: a family, or a histogram's _bucket, _sum, _count. */
export function exported(e: Exposition, name: string): boolean {
  if (e.types.has(name)) return true;
  const family = name.replace(/_(bucket|sum|count)$/, "");
  return family !== name && (e.types.get(family) === "histogram" || e.types.get(family) === "summary");
}
