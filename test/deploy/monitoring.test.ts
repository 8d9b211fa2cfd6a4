// The operator's cockpit in the chart: the Grafana dashboard ConfigMap and
// the PrometheusRule render when enabled; every alert and panel expression
// parses as PromQL, and every series and label it names is exported by the
// api, scheduler and executor running for real (so an alert on a misspelt
// metric fails here); each alert has its runbook in docs/runbooks.md.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, insertPolicy } from "../support/rows.js";
import { printLogsOnFailure, startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";
import { find, helm, type K8sObject, NAMESPACE, RELEASE, render } from "./chart.js";
import { type Exposition, expandGrafanaVariables, exported, parseExposition, parsePromQL } from "./promql.js";

const root = path.resolve(import.meta.dirname, "..", "..");
const ENABLED = ["monitoring.grafanaDashboard.enabled=true", "monitoring.prometheusRule.enabled=true"];
/** Labels Prometheus adds to every series of a target (ServiceMonitor or pod-annotation scrape). */
const TARGET_LABELS = new Set(["namespace", "pod", "job", "instance", "service", "container", "endpoint"]);
const ALERTS = ["TtrFiringLate", "TtrNoActiveScheduler", "TtrSchedulerTickStuck", "TtrNotReady", "TtrDeadLetters", "TtrQueueGrowing", "TtrRetentionStalled"];

interface Query {
  where: string;
  expr: string;
}

let objects: K8sObject[];
let alerts: K8sObject[];
let panelQueries: Query[];

beforeAll(async () => {
  objects = await render([], ENABLED);
  alerts = find(objects, "PrometheusRule", "").spec.groups.flatMap((g: K8sObject) => g.rules);
  const dashboard = JSON.parse(find(objects, "ConfigMap", "-dashboard").data["ttr-overview.json"]);
  panelQueries = dashboard.panels.flatMap((p: K8sObject) => (p.targets ?? []).map((t: K8sObject) => ({ where: `panel "${p.title}"`, expr: expandGrafanaVariables(t.expr, NAMESPACE) })));
  const variable = dashboard.templating.list.find((v: K8sObject) => v.name === "namespace");
  panelQueries.push({ where: "variable namespace", expr: variable.query.query.replace(/^label_values\((\w+), \w+\)$/, "$1") });
});

const alertQueries = (): Query[] => alerts.map((a) => ({ where: `alert ${a.alert}`, expr: a.expr }));

describe("rendering", () => {
  it("renders neither by default", async () => {
    const kinds = (await render()).map((o) => `${o.kind}/${o.metadata.name}`);
    expect(kinds).not.toContain(`PrometheusRule/${RELEASE}-ttr`);
    expect(kinds).not.toContain(`ConfigMap/${RELEASE}-ttr-dashboard`);
  });

  it("the dashboard ConfigMap carries the sidecar's label, the chosen namespace and annotations, and valid dashboard JSON", async () => {
    const cm = find(await render(["ci/operations-values.yaml"]), "ConfigMap", "-dashboard");
    expect(cm.metadata.labels.grafana_dashboard).toBe("1");
    expect(cm.metadata.namespace).toBe("monitoring");
    expect(cm.metadata.annotations).toEqual({ grafana_folder: "ttr" });
    const dashboard = JSON.parse(cm.data["ttr-overview.json"]);
    expect(dashboard.uid).toBe("ttr-overview");
    const titles = dashboard.panels.map((p: K8sObject) => p.title);
    for (const t of ["Fire lateness", "Queue depth", "Held by tag policies", "Dead letters", "Active schedulers", "Stores answering", "Since the last retention pass"]) expect(titles).toContain(t);
    const own = await render([], [...ENABLED, "monitoring.grafanaDashboard.sidecarLabel=dashboards", "monitoring.grafanaDashboard.sidecarLabelValue=ttr"]);
    const relabelled = find(own, "ConfigMap", "-dashboard");
    expect(relabelled.metadata.labels.dashboards).toBe("ttr");
    expect(relabelled.metadata.namespace).toBe(NAMESPACE);
  });

  it("the PrometheusRule holds the seven alerts, scoped to the release's namespace, with thresholds from values", async () => {
    expect(alerts.map((a) => a.alert)).toEqual(ALERTS);
    for (const a of alerts) {
      for (const ref of parsePromQL(a.expr).selectors) expect(ref.labels, `${a.alert}: ${a.expr}`).toContain("namespace");
      expect(a.expr).toContain(`namespace="${NAMESPACE}"`);
      expect(a.annotations.summary).toBeTruthy();
      expect(["warning", "critical"]).toContain(a.labels.severity);
    }
    const tuned = find(await render(["ci/operations-values.yaml"]), "PrometheusRule", "").spec.groups[0].rules as K8sObject[];
    const byName = new Map(tuned.map((a) => [a.alert as string, a]));
    expect(byName.get("TtrFiringLate")!.expr).toMatch(/\) > 2$/);
    expect(byName.get("TtrDeadLetters")!.expr).toMatch(/\* 60 > 5$/);
    expect(byName.get("TtrQueueGrowing")!.expr).toMatch(/> 500 and deriv/);
    expect(byName.get("TtrSchedulerTickStuck")!.expr).toMatch(/\) > 20$/);
    expect(byName.get("TtrRetentionStalled")!.expr).toMatch(/> 14400$/);
    expect(byName.get("TtrNotReady")!.labels).toEqual({ severity: "critical", team: "platform" });
    expect(byName.get("TtrNotReady")!.annotations.runbook_url).toBe("https://docs.example.com/ttr/runbooks.md#ttrnotready");
    expect(find(await render(["ci/operations-values.yaml"]), "PrometheusRule", "").metadata.labels.release).toBe("kube-prometheus-stack");
  });

  it("leaves out the retention alert when retention is off (config.retentionDays=0)", async () => {
    const rules = find(await render([], [...ENABLED, "config.retentionDays=0"]), "PrometheusRule", "").spec.groups[0].rules;
    expect(rules.map((a: K8sObject) => a.alert)).toEqual(ALERTS.filter((a) => a !== "TtrRetentionStalled"));
  });

  it("each alert names its runbook, a section of docs/runbooks.md with what it means, first checks and fixes", () => {
    const runbooks = readFileSync(path.join(root, "docs", "runbooks.md"), "utf8");
    for (const a of alerts) {
      const anchor = a.annotations.runbook.replace("docs/runbooks.md#", "");
      expect(anchor).toBe(a.alert.toLowerCase());
      const start = runbooks.indexOf(`\n## ${a.alert}\n`);
      expect(start, `docs/runbooks.md has no "## ${a.alert}"`).toBeGreaterThan(0);
      const next = runbooks.indexOf("\n## ", start + 1);
      const section = runbooks.slice(start, next === -1 ? undefined : next);
      for (const part of ["**What it means**", "**First checks**", "**Fixes**"]) expect(section, `${a.alert}: ${part}`).toContain(part);
    }
  });

  it("schema: refuses an unknown monitoring key and a runbook address that is not http(s)", async () => {
    const unknown = await helm(["template", RELEASE, ".", "--set", "monitoring.prometheusRule.bogus=1"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/additional properties 'bogus' not allowed/);
    const url = await helm(["template", RELEASE, ".", "--set", "monitoring.prometheusRule.runbookBaseUrl=docs/runbooks.md"]);
    expect(url.code).not.toBe(0);
    expect(url.stderr).toMatch(/runbookBaseUrl/);
  });
});

describe("every expression parses as PromQL", () => {
  it("all alert and panel queries, and the parser does reject a broken one", () => {
    const all = [...alertQueries(), ...panelQueries];
    expect(panelQueries.length).toBeGreaterThan(20);
    for (const q of all) expect(parsePromQL(q.expr).errors, `${q.where}: ${q.expr}`).toEqual([]);
    expect(parsePromQL("sum(rate(ttr_attempts_total[5m])").errors.length).toBeGreaterThan(0);
    expect(parsePromQL("sum(rate(ttr_attempts_total[$__rate_interval]))").errors.length).toBeGreaterThan(0);
  });
});

describe("against the services' live /metrics", () => {
  let sys: System;
  printLogsOnFailure(() => sys);
  let target: Target;
  const scrape = async (): Promise<Exposition> => {
    let e: Exposition | undefined;
    for (const s of sys.services) {
      const res = await fetch(`http://127.0.0.1:${s.port}/metrics`);
      expect(res.status).toBe(200);
      e = parseExposition(await res.text(), e);
    }
    return e!;
  };
  let live: Exposition;

  beforeAll(async () => {
    target = await startTarget();
    target.on("/ok", (_req, res) => res.writeHead(200).end("ok"));
    target.on("/fail", (_req, res) => res.writeHead(500).end());
    target.on("/hang", () => {});
    sys = await startSystem();
    // one at a time under tag "slow": the second attempt is held while the first hangs
    await insertPolicy(sys.db, sys.projectId, "slow", { max_concurrent: 1 });
    for (const [p, tags] of [["/ok", ""], ["/fail", ""], ["/hang", "slow"], ["/hang", "slow"]]) {
      const res = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}${p}`, "ttr-scheduled-at": "now", ...(tags ? { "ttr-tags": tags } : {}) });
      expect(res.status, res.text).toBe(200);
    }
    // made an hour after its time, to be sent at once
    const missed = await sys.call("POST", "/schedule", {
      "ttr-api-key": sys.apiKey,
      "ttr-url": `${target.base}/ok`,
      "ttr-scheduled-at": new Date(Date.now() - 3_600_000).toISOString(),
      "ttr-run-missed": "true",
    });
    expect(missed.status, missed.text).toBe(200);
    // a recurring trigger whose upcoming instance went missing: the scheduler's sweep makes it again
    const yearly = await sys.call("POST", "/schedule", { "ttr-api-key": sys.apiKey, "ttr-url": `${target.base}/ok`, "ttr-scheduled-at": "cron(0 0 1 1 *)" });
    expect(yearly.status, yearly.text).toBe(200);
    await sys.db.$executeRawUnsafe("DELETE FROM triggers WHERE generator_id = $1::uuid", yearly.json<{ triggerId: string }>().triggerId);
    // attempts finished, one held, and the scheduler's first retention pass (10 s after it leads) done
    live = await eventually(
      async () => {
        const e = await scrape();
        const done =
          (e.values.get("ttr_dead_letters_total")?.[0] ?? 0) >= 1 &&
          (e.values.get("ttr_retention_last_success_timestamp_seconds")?.[0] ?? 0) > 0 &&
          (e.values.get("ttr_instances_created_total")?.[0] ?? 0) > 0;
        return done && e.labels.get("ttr_attempts_total")?.has("outcome") && e.values.has("ttr_attempts_held_by_tag") ? e : undefined;
      },
      40_000,
      "a dead letter, a success, a held attempt, a retention pass and a missing instance made again",
    );
  }, 90_000);
  afterAll(async () => {
    await sys?.stop();
    await target?.close();
  });

  it("counts the dead letter (ttr_dead_letters_total) and reports both stores up on every service (ttr_store_up)", () => {
    expect(live.values.get("ttr_dead_letters_total")).toEqual([1]);
    expect(live.labels.get("ttr_store_up")).toEqual(new Set(["store", "service"]));
    const up = live.values.get("ttr_store_up")!;
    expect(up).toHaveLength(6); // postgres and redis on the api, scheduler and executor
    expect(up.every((v) => v === 1)).toBe(true);
    expect(live.values.get("ttr_scheduler_leader")).toEqual([1]);
  });

  it("counts a trigger made for a time already past as late from its creation, not by the hour it missed (ttr_fire_lateness_seconds)", () => {
    // the /ok, /fail, the first /hang and the missed one; the held /hang may have gone out too
    expect(live.values.get("ttr_fire_lateness_seconds_count")?.[0]).toBeGreaterThanOrEqual(4);
    expect(live.values.get("ttr_fire_lateness_seconds_sum")?.[0]).toBeLessThan(60);
  });

  it("counts the instance the scheduler made in place of a missing one (ttr_instances_created_total)", () => {
    expect(live.values.get("ttr_instances_created_total")).toEqual([1]);
  });

  it("shows the held backlog per project and tag (ttr_attempts_held_by_tag)", () => {
    expect(live.values.get("ttr_attempts_held_by_tag")).toEqual([1]);
    expect(live.labels.get("ttr_attempts_held_by_tag")).toEqual(new Set(["project", "tag", "service"]));
  });

  it("every series an alert or panel names is exported, with the labels it matches or groups by", () => {
    const all = [...alertQueries(), ...panelQueries];
    for (const q of all) {
      const parsed = parsePromQL(q.expr);
      expect(parsed.selectors.length, q.where).toBeGreaterThan(0);
      const seen = new Set<string>(TARGET_LABELS);
      for (const ref of parsed.selectors) {
        expect(exported(live, ref.metric), `${q.where}: ${ref.metric} is not exported by any service`).toBe(true);
        const labels = live.labels.get(ref.metric) ?? new Set<string>();
        for (const l of labels) seen.add(l);
        for (const l of ref.labels) expect(TARGET_LABELS.has(l) || labels.has(l), `${q.where}: ${ref.metric} has no label ${l}`).toBe(true);
      }
      for (const l of parsed.grouping) expect(seen.has(l), `${q.where}: groups by ${l}, which no series of it has`).toBe(true);
    }
  });

  it("a misspelt series or label would be caught", () => {
    const [ref] = parsePromQL('ttr_fire_latenes_seconds_bucket{namespace="x"}').selectors;
    expect(exported(live, ref!.metric)).toBe(false);
    expect(exported(live, "ttr_fire_lateness_seconds_bucket")).toBe(true);
    expect(live.labels.get("ttr_attempts_total")?.has("outcomes")).toBe(false);
  });
});
