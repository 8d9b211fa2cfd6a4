// Limits the chart must respect whatever the values: object names that
// Kubernetes accepts for any release name Helm accepts, numbers the services
// accept at start, KEDA's query matching this release's scheduler pods under
// any release name, and no password in a container's arguments.
import { describe, expect, it } from "vitest";
import { loadEnv as apiEnv } from "../../services/api/src/env.js";
import { loadEnv as executorEnv } from "../../services/executor/src/env.js";
import { loadEnv as schedulerEnv } from "../../services/scheduler/src/env.js";
import { find, helm, type K8sObject, podTemplates, render, renderRelease } from "./chart.js";

/** Every optional object on, so every name the chart can give is rendered. */
const EVERYTHING = [
  "evaluation.postgresql.enabled=true",
  "evaluation.redis.enabled=true",
  "networkPolicy.enabled=true",
  "metrics.serviceMonitor.enabled=true",
  "monitoring.prometheusRule.enabled=true",
  "monitoring.grafanaDashboard.enabled=true",
  "api.ingress.enabled=true",
  "executor.autoscaling.enabled=true",
  `secretKey.value=${"a".repeat(64)}`,
];
const KEDA = ["executor.keda.enabled=true", "executor.keda.prometheus.serverAddress=http://prometheus:9090"];

// RFC 1123 label (every name below); Services need RFC 1035 (a letter first)
const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

describe("object names", () => {
  // Helm takes release names of up to 53 characters, with dots, starting with a digit
  const releases = [
    "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghi", // 53
    "a".repeat(42), // where the metrics Services first went past 63
    "x".repeat(50) + "ttr", // a name holding "ttr" is the fullname alone
    "rel.example.with-dots-abcdefghij-abcdefghij-abcdefgh", // 52, with dots
    "1" + "0".repeat(52), // 53 digits
  ];

  it.each(releases)("release %s: every name is a DNS label of at most 63, unique, StatefulSets at most 52", async (release) => {
    expect(release.length).toBeLessThanOrEqual(53);
    for (const extra of [EVERYTHING, KEDA]) {
      const objects = await renderRelease(release, [], extra);
      const names = objects.map((o) => `${o.kind}/${o.metadata.name}`);
      expect(new Set(names).size, names.join(", ")).toBe(names.length);
      for (const o of objects) {
        const name: string = o.metadata.name;
        expect(name.length, `${o.kind} ${name}`).toBeLessThanOrEqual(63);
        expect(name, o.kind).toMatch(o.kind === "Service" ? DNS_1035_LABEL : DNS_1123_LABEL);
        // a StatefulSet's pods carry controller-revision-hash: <name>-<10 characters>, a label value
        if (o.kind === "StatefulSet") expect(name.length, name).toBeLessThanOrEqual(52);
      }
      // every Service keeps its own component's name at the end
      for (const svc of objects.filter((o) => o.kind === "Service")) {
        const component = svc.metadata.labels["app.kubernetes.io/component"];
        expect(svc.metadata.name).toMatch(new RegExp(`-${component}(-metrics)?$`));
      }
    }
  });

  it("a short release keeps <release>-ttr-<component>[-metrics]", async () => {
    const objects = await render([], EVERYTHING);
    const services = objects.filter((o) => o.kind === "Service").map((o) => o.metadata.name);
    expect(services.sort()).toEqual(["rel-ttr-api", "rel-ttr-executor-metrics", "rel-ttr-postgresql", "rel-ttr-redis", "rel-ttr-scheduler-metrics"]);
    expect(find(objects, "StatefulSet", "-postgresql")).toBeDefined();
    expect(find(objects, "Pod", "-test-readyz")).toBeDefined();
  });
});

/**
 * The name Kubernetes gives a pod of a Deployment: the ReplicaSet is
 * <deployment>-<pod-template-hash> (at most 10 characters), its pods
 * <replicaset>-<5 random>, the part before the random ones cut to 58.
 */
function podName(deployment: string, hash: string, random = "x7k2q"): string {
  return `${deployment}-${hash}-`.slice(0, 58) + random;
}

describe("KEDA's default query", () => {
  const depthSelector = (query: string) => {
    const m = /^max\(ttr_queue_depth\{namespace="([^"]+)",pod=~"([^"]+)"\}\)$/.exec(query);
    expect(m, query).not.toBeNull();
    return { namespace: m![1], pods: new RegExp(`^(?:${m![2]})$`) };
  };

  it.each(["rel", "a".repeat(30), "a".repeat(35), "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghi"])(
    "release %s: selects its scheduler pods by namespace and pod (labels any scrape gives), not service, and no other pods",
    async (release) => {
      const objects = await renderRelease(release, ["ci/keda-values.yaml"]);
      const query: string = objects.find((o) => o.kind === "ScaledObject")!.spec.triggers[0].metadata.query;
      expect(query).not.toContain("service");
      const { namespace, pods } = depthSelector(query);
      expect(namespace).toBe("ttr-ns");
      const deployments = objects.filter((o) => o.kind === "Deployment").map((o) => o.metadata.name as string);
      const scheduler = deployments.find((d) => d.endsWith("-scheduler"))!;
      for (const hash of ["5d9c7b8f4", "7f6b9c5d8x", "6b4"]) {
        expect(podName(scheduler, hash), `${scheduler} ${hash}`).toMatch(pods);
        for (const other of deployments.filter((d) => d !== scheduler)) expect(podName(other, hash)).not.toMatch(pods);
      }
      // another release whose name starts with this one's scheduler Deployment
      if (scheduler.length <= 40) expect(podName(`${scheduler}-b-ttr-scheduler`, "5d9c7b8f4")).not.toMatch(pods);
    },
  );

  it("is the same with a ServiceMonitor or pod annotations, and executor.keda.prometheus.query replaces it", async () => {
    const query = async (set: string[]) => (await render(["ci/keda-values.yaml"], set)).find((o) => o.kind === "ScaledObject")!.spec.triggers[0].metadata.query;
    const annotations = await query([]);
    expect(await query(["metrics.serviceMonitor.enabled=true"])).toBe(annotations);
    expect(await query(["metrics.podAnnotations=false", "metrics.serviceMonitor.enabled=true"])).toBe(annotations);
    expect(await query(["executor.keda.prometheus.query=sum(x)"])).toBe("sum(x)");
  });
});

describe("numbers the services refuse at start are refused by the chart", () => {
  const required = { DATABASE_URL: "postgresql://u:p@h:5432/d", REDIS_URL: "redis://h:6379/0" };
  // value, variable, the service's loadEnv, its largest accepted value
  const cases: Array<[string, string, (env: NodeJS.ProcessEnv) => unknown, number, string[]]> = [
    ["api.dbPoolSize", "DB_POOL_SIZE", apiEnv, 200, []],
    ["scheduler.dbPoolSize", "DB_POOL_SIZE", schedulerEnv, 100, []],
    ["scheduler.tickMs", "SCHEDULER_TICK_MS", schedulerEnv, 60_000, []],
    ["scheduler.batchSize", "SCHEDULER_BATCH_SIZE", schedulerEnv, 10_000, []],
    ["executor.dbPoolSize", "DB_POOL_SIZE", executorEnv, 200, []],
    ["executor.concurrency", "EXECUTOR_CONCURRENCY", executorEnv, 2000, []],
    ["executor.shutdownGraceSeconds", "EXECUTOR_SHUTDOWN_GRACE_SECONDS", executorEnv, 7200, ["executor.terminationGracePeriodSeconds=7300"]],
  ];

  it.each(cases)("%s (%s): the service's maximum renders, one more is refused by the schema", async (value, variable, loadEnv, max, extra) => {
    expect(() => loadEnv({ ...required, [variable]: String(max) })).not.toThrow();
    expect(() => loadEnv({ ...required, [variable]: String(max + 1) })).toThrow(variable);
    const ok = await helm(["template", "rel", ".", "--set", `${value}=${max}`, ...extra.flatMap((s) => ["--set", s])]);
    expect(ok.code, ok.stderr).toBe(0);
    const refused = await helm(["template", "rel", ".", "--set", `${value}=${max + 1}`, ...extra.flatMap((s) => ["--set", s])]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/maximum|must be <=/);
  });
});

describe("the evaluation Redis", () => {
  it("reads its password from a mounted config file: no password in any container's command, arguments or env values", async () => {
    const objects = await render([], ["evaluation.postgresql.enabled=true", "evaluation.redis.enabled=true", "evaluation.redis.password=s3cret-Pw"]);
    for (const { owner, spec } of podTemplates(objects)) {
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        const argv = [...(c.command ?? []), ...(c.args ?? [])].join(" ");
        expect(argv, `${owner.metadata.name} ${c.name}`).not.toMatch(/PASSWORD|requirepass|s3cret-Pw/i);
        for (const e of c.env ?? []) expect(String(e.value ?? ""), `${c.name} ${e.name}`).not.toContain("s3cret-Pw");
      }
    }
    const redis = find(objects, "Deployment", "-redis").spec.template.spec;
    const container: K8sObject = redis.containers[0];
    expect(container.args).toEqual(["redis-server", "/etc/redis/redis.conf"]);
    expect(container.volumeMounts).toContainEqual({ name: "config", mountPath: "/etc/redis", readOnly: true });
    const volume = redis.volumes.find((v: K8sObject) => v.name === "config");
    expect(volume.secret.secretName).toBe("rel-ttr-redis");
    // readable by the redis user's group only (fsGroup 999)
    expect(volume.secret.defaultMode).toBe(0o440);
    expect(redis.securityContext.fsGroup).toBe(999);
    const conf: string = find(objects, "Secret", "-redis").stringData["redis.conf"];
    expect(conf.split("\n")).toEqual(expect.arrayContaining(['requirepass "s3cret-Pw"', 'save ""', "appendonly no", "maxmemory-policy noeviction"]));
    // the connection Secret's URL carries the same password
    expect(find(objects, "Secret", "-connection").stringData.REDIS_URL).toBe("redis://:s3cret-Pw@rel-ttr-redis:6379/0");
  });

  it("quotes the password for redis.conf and restarts Redis when it changes", async () => {
    const a = await render([], ["evaluation.redis.enabled=true", "evaluation.redis.password=one"]);
    const b = await render([], ["evaluation.redis.enabled=true", "evaluation.redis.password=two"]);
    const checksum = (o: K8sObject[]) => find(o, "Deployment", "-redis").spec.template.metadata.annotations["checksum/config"];
    expect(checksum(a)).toMatch(/^[a-f0-9]{64}$/);
    expect(checksum(a)).not.toBe(checksum(b));
    const quoted = await helm(["template", "rel", ".", "--set", "evaluation.redis.enabled=true", "--set-json", `evaluation.redis.password=${JSON.stringify('a "b" \\c')}`]);
    expect(quoted.stdout).toContain(String.raw`requirepass "a \"b\" \\c"`);
  });
});
