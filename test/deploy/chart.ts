// Renders deploy/helm/ttr with the Helm binary get-helm.mjs extracts, parses
// the objects, and validates each against the Kubernetes models for its kind.
import { execFile } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { getHelm } from "../../deploy/helm/get-helm.mjs";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const chartDir = path.join(root, "deploy", "helm", "ttr");
export const RELEASE = "rel";
export const NAMESPACE = "ttr-ns";

/** A rendered manifest: plain JSON. */
export type K8sObject = Record<string, any>;

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function helm(args: string[]): Promise<HelmResult> {
  const bin: string = await getHelm();
  try {
    // Helm's own folders out of HOME: nothing here needs repositories or plugins.
    const home = path.join(tmpdir(), "ttr-helm");
    const env = { ...process.env, HELM_CACHE_HOME: `${home}/cache`, HELM_CONFIG_HOME: `${home}/config`, HELM_DATA_HOME: `${home}/data` };
    const { stdout, stderr } = await run(bin, args, { cwd: chartDir, maxBuffer: 32 * 1024 * 1024, env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? String(err) };
  }
}

/** `helm template`; values files are relative to the chart. Throws with Helm's message on failure. */
export async function render(valuesFiles: string[] = [], set: string[] = []): Promise<K8sObject[]> {
  return renderRelease(RELEASE, valuesFiles, set);
}

/** `render` with another release name than RELEASE. */
export async function renderRelease(release: string, valuesFiles: string[] = [], set: string[] = []): Promise<K8sObject[]> {
  const res = await helm(["template", release, ".", "--namespace", NAMESPACE, ...valuesFiles.flatMap((f) => ["-f", f]), ...set.flatMap((s) => ["--set", s])]);
  if (res.code !== 0) throw new Error(`helm template failed: ${res.stderr}`);
  return parseAllDocuments(res.stdout)
    .map((d) => {
      if (d.errors.length) throw new Error(`rendered YAML does not parse: ${d.errors[0]!.message}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

/** Validates against kubernetes-models (types, required fields, formats; not unknown fields). */
export async function validateObject(obj: K8sObject): Promise<void> {
  const custom = CUSTOM_KINDS[`${obj.apiVersion}/${obj.kind}`];
  if (custom) return custom(obj);
  const modulePath = `kubernetes-models/${obj.apiVersion}`;
  const mod = (await import(modulePath)) as Record<string, new (data: K8sObject) => { validate(): void }>;
  const Model = mod[obj.kind];
  if (!Model) throw new Error(`no kubernetes-models model for ${obj.apiVersion} ${obj.kind}`);
  new Model(obj).validate();
}

function check(ok: unknown, what: string): void {
  if (!ok) throw new Error(what);
}

const isName = (v: unknown) => typeof v === "string" && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v) && v.length <= 63;
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;

/** CRDs that have no model: a minimal check of their shape. */
const CUSTOM_KINDS: Record<string, (o: K8sObject) => void> = {
  // https://keda.sh/docs/latest/reference/scaledobject-spec/ and the prometheus scaler
  "keda.sh/v1alpha1/ScaledObject": (o) => {
    check(isName(o.metadata?.name), "ScaledObject: metadata.name");
    const spec = o.spec ?? {};
    check(isName(spec.scaleTargetRef?.name), "ScaledObject: spec.scaleTargetRef.name");
    check(spec.scaleTargetRef.kind === undefined || spec.scaleTargetRef.kind === "Deployment", "ScaledObject: scaleTargetRef.kind");
    for (const k of ["minReplicaCount", "maxReplicaCount", "pollingInterval", "cooldownPeriod"]) check(spec[k] === undefined || isCount(spec[k]), `ScaledObject: spec.${k} must be a whole number`);
    check(spec.maxReplicaCount >= (spec.minReplicaCount ?? 0), "ScaledObject: maxReplicaCount < minReplicaCount");
    check(Array.isArray(spec.triggers) && spec.triggers.length > 0, "ScaledObject: spec.triggers");
    for (const t of spec.triggers) {
      check(typeof t.type === "string", "ScaledObject: trigger.type");
      check(t.metadata && typeof t.metadata === "object", "ScaledObject: trigger.metadata");
      // KEDA trigger metadata values are strings
      for (const [k, v] of Object.entries(t.metadata)) check(typeof v === "string", `ScaledObject: trigger.metadata.${k} must be a string`);
      if (t.type === "prometheus") {
        check(/^https?:\/\/\S+$/.test(t.metadata.serverAddress), "ScaledObject: prometheus serverAddress");
        check(t.metadata.query, "ScaledObject: prometheus query");
        check(Number(t.metadata.threshold) > 0, "ScaledObject: prometheus threshold");
      }
    }
  },
  // prometheus-operator ServiceMonitor
  "monitoring.coreos.com/v1/ServiceMonitor": (o) => {
    check(isName(o.metadata?.name), "ServiceMonitor: metadata.name");
    check(o.spec?.selector && typeof o.spec.selector === "object", "ServiceMonitor: spec.selector");
    check(Array.isArray(o.spec.endpoints) && o.spec.endpoints.length > 0, "ServiceMonitor: spec.endpoints");
    for (const e of o.spec.endpoints) check(typeof e.port === "string" && e.path?.startsWith("/"), "ServiceMonitor: endpoint port and path");
  },
  // prometheus-operator PrometheusRule (its expressions are parsed in monitoring.test.ts)
  "monitoring.coreos.com/v1/PrometheusRule": (o) => {
    check(isName(o.metadata?.name), "PrometheusRule: metadata.name");
    check(Array.isArray(o.spec?.groups) && o.spec.groups.length > 0, "PrometheusRule: spec.groups");
    for (const g of o.spec.groups) {
      check(typeof g.name === "string" && Array.isArray(g.rules) && g.rules.length > 0, "PrometheusRule: group name and rules");
      for (const r of g.rules) {
        check(typeof (r.alert ?? r.record) === "string", "PrometheusRule: rule alert or record");
        check(typeof r.expr === "string" && r.expr.length > 0, `PrometheusRule: ${r.alert} expr`);
        check(r.for === undefined || /^(\d+(ms|s|m|h|d|w|y))+$/.test(r.for), `PrometheusRule: ${r.alert} for`);
        for (const v of Object.values({ ...r.labels, ...r.annotations })) check(typeof v === "string", `PrometheusRule: ${r.alert} labels and annotations are strings`);
      }
    }
  },
};

export interface PodTemplate {
  owner: K8sObject;
  spec: K8sObject;
  labels: Record<string, string>;
  longRunning: boolean;
}

/** Every pod spec in the rendered objects, with whether its containers run for good. */
export function podTemplates(objects: K8sObject[]): PodTemplate[] {
  const pods: PodTemplate[] = [];
  for (const o of objects) {
    if (["Deployment", "StatefulSet", "DaemonSet"].includes(o.kind)) pods.push({ owner: o, spec: o.spec.template.spec, labels: o.spec.template.metadata?.labels ?? {}, longRunning: true });
    else if (o.kind === "Job") pods.push({ owner: o, spec: o.spec.template.spec, labels: o.spec.template.metadata?.labels ?? {}, longRunning: false });
    else if (o.kind === "Pod") pods.push({ owner: o, spec: o.spec, labels: o.metadata?.labels ?? {}, longRunning: false });
  }
  return pods;
}

export function find(objects: K8sObject[], kind: string, nameSuffix: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === `${RELEASE}-ttr${nameSuffix}`);
  if (!found) throw new Error(`no ${kind} ${RELEASE}-ttr${nameSuffix} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(", ")}`);
  return found;
}

export function envOf(container: K8sObject): Map<string, K8sObject> {
  return new Map((container.env ?? []).map((e: K8sObject) => [e.name, e]));
}
