// deploy/helm/ttr: lints strictly, renders with the default values and each
// file under ci/, every object validates against the Kubernetes models, and
// the chart keeps the checklist of well-kept public charts (security
// contexts, probes, resources, stable selectors, hooks, no `latest`).
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { chartDir, envOf, find, helm, type K8sObject, NAMESPACE, podTemplates, RELEASE, render, validateObject } from "./chart.js";

const ciFiles = readdirSync(path.join(chartDir, "ci"))
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .map((f) => `ci/${f}`);
const valueSets: Array<[string, string[]]> = [["default values", []], ...ciFiles.map((f): [string, string[]] => [f, [f]])];

const STABLE_SELECTOR_KEYS = new Set(["app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component"]);

/** Every label selector in an object (workloads, Services, PDBs, NetworkPolicies, spread constraints). */
function selectorsOf(o: K8sObject): Array<Record<string, string>> {
  const found: Array<Record<string, string>> = [];
  if (o.spec?.selector?.matchLabels) found.push(o.spec.selector.matchLabels);
  if (o.kind === "Service" && o.spec?.selector) found.push(o.spec.selector);
  if (o.kind === "NetworkPolicy") found.push(o.spec.podSelector.matchLabels);
  for (const c of o.spec?.template?.spec?.topologySpreadConstraints ?? []) found.push(c.labelSelector.matchLabels);
  return found;
}

function imagesOf(objects: K8sObject[]): string[] {
  return podTemplates(objects).flatMap((p) => [...(p.spec.initContainers ?? []), ...p.spec.containers].map((c: K8sObject) => c.image as string));
}

it("ci/ holds at least four values files (external database, HPA, KEDA, evaluation databases)", () => {
  expect(ciFiles).toEqual(expect.arrayContaining(["ci/external-db-values.yaml", "ci/hpa-values.yaml", "ci/keda-values.yaml", "ci/evaluation-values.yaml"]));
});

describe.each(valueSets)("with %s", (_label, files) => {
  it("passes helm lint --strict", async () => {
    const res = await helm(["lint", "--strict", ".", ...files.flatMap((f) => ["-f", f])]);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain("0 chart(s) failed");
  });

  it("renders objects that validate against the Kubernetes models, all labelled", async () => {
    const objects = await render(files);
    expect(objects.length).toBeGreaterThan(10);
    for (const o of objects) {
      await expect(validateObject(o), `${o.kind} ${o.metadata?.name}`).resolves.toBeUndefined();
      const labels = o.metadata.labels ?? {};
      expect(labels["helm.sh/chart"], `${o.kind} ${o.metadata.name}`).toMatch(/^ttr-\d/);
      expect(labels["app.kubernetes.io/name"]).toBe("ttr");
      expect(labels["app.kubernetes.io/instance"]).toBe(RELEASE);
      expect(labels["app.kubernetes.io/managed-by"]).toBe("Helm");
      expect(labels["app.kubernetes.io/version"]).toBeTruthy();
    }
  });

  it("gives every pod security contexts, resources, a writable /tmp only, and long-running containers probes", async () => {
    const pods = podTemplates(await render(files));
    expect(pods.length).toBeGreaterThanOrEqual(5); // 3 components, migration Job, test Pod
    for (const { owner, spec, longRunning } of pods) {
      const where = `${owner.kind} ${owner.metadata.name}`;
      expect(spec.securityContext?.runAsNonRoot, where).toBe(true);
      expect(spec.securityContext?.seccompProfile?.type, where).toBe("RuntimeDefault");
      expect(spec.automountServiceAccountToken, where).toBe(false);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        const at = `${where} container ${c.name}`;
        expect(c.securityContext, at).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
          seccompProfile: { type: "RuntimeDefault" },
        });
        expect(c.resources?.requests?.cpu, at).toBeDefined();
        expect(c.resources?.requests?.memory, at).toBeDefined();
        expect(c.resources?.limits?.memory, at).toBeDefined();
        const tmp = (c.volumeMounts ?? []).find((m: K8sObject) => m.mountPath === "/tmp");
        expect(tmp, `${at}: /tmp`).toBeDefined();
        expect(spec.volumes.find((v: K8sObject) => v.name === tmp.name).emptyDir, at).toBeDefined();
      }
      if (!longRunning) continue;
      for (const c of spec.containers) {
        const at = `${where} container ${c.name}`;
        expect(c.startupProbe, at).toBeDefined();
        expect(c.livenessProbe, at).toBeDefined();
        expect(c.readinessProbe, at).toBeDefined();
      }
    }
  });

  it("selects on stable labels only (name, instance, component), matching the pods' labels", async () => {
    const objects = await render(files);
    for (const o of objects) {
      for (const selector of selectorsOf(o)) {
        expect(Object.keys(selector).length, `${o.kind} ${o.metadata.name}`).toBeGreaterThan(0);
        for (const key of Object.keys(selector)) expect(STABLE_SELECTOR_KEYS.has(key), `${o.kind} ${o.metadata.name}: ${key}`).toBe(true);
      }
    }
    for (const { owner, labels } of podTemplates(objects)) {
      const selector = owner.spec?.selector?.matchLabels;
      if (selector) expect(labels, owner.metadata.name).toMatchObject(selector);
    }
    for (const svc of objects.filter((o) => o.kind === "Service")) {
      const backed = podTemplates(objects).some(({ labels }) => Object.entries(svc.spec.selector).every(([k, v]) => labels[k] === v));
      expect(backed, `Service ${svc.metadata.name} selects no pod`).toBe(true);
    }
  });

  it("never uses a `latest` or untagged image", async () => {
    const images = imagesOf(await render(files));
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) {
      const tag = /:([\w][\w.-]{0,127})(@sha256:[a-f0-9]{64})?$/.exec(image.replace(/^[^/]+:\d+\//, ""))?.[1];
      expect(tag, image).toBeDefined();
      expect(tag, image).not.toBe("latest");
    }
  });

  it("keeps DATABASE_URL and REDIS_URL in Secrets, never in a ConfigMap or a plain env value", async () => {
    const objects = await render(files);
    for (const cm of objects.filter((o) => o.kind === "ConfigMap")) {
      expect(Object.keys(cm.data)).not.toContain("DATABASE_URL");
      expect(Object.keys(cm.data)).not.toContain("REDIS_URL");
      for (const value of Object.values(cm.data)) expect(String(value)).not.toMatch(/:\/\//);
    }
    for (const { spec } of podTemplates(objects)) {
      for (const c of spec.containers) {
        for (const name of ["DATABASE_URL", "REDIS_URL"]) {
          const e = envOf(c).get(name);
          if (e) expect(e.valueFrom?.secretKeyRef, `${c.name} ${name}`).toBeDefined();
        }
      }
    }
  });
});

describe("defaults", () => {
  it("api, scheduler (2 replicas: one active, one standby) and executor, each with a PodDisruptionBudget", async () => {
    const objects = await render();
    expect(find(objects, "Deployment", "-scheduler").spec.replicas).toBe(2);
    for (const c of ["-api", "-scheduler", "-executor"]) {
      const d = find(objects, "Deployment", c);
      expect(d.spec.template.spec.containers[0].args).toEqual([c.slice(1)]);
      expect(find(objects, "PodDisruptionBudget", c).spec.selector.matchLabels).toEqual(d.spec.selector.matchLabels);
      expect(d.spec.template.metadata.annotations["checksum/config"]).toMatch(/^[a-f0-9]{64}$/);
    }
    const api = find(objects, "Deployment", "-api").spec.template.spec.containers[0];
    expect(api.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(api.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(find(objects, "Service", "-api").spec.ports[0].targetPort).toBe("http");
    expect(objects.filter((o) => ["Ingress", "HorizontalPodAutoscaler", "ScaledObject", "NetworkPolicy", "StatefulSet"].includes(o.kind))).toEqual([]);
  });

  it("sizes the executor's termination grace for its attempts in flight, and blocks private networks", async () => {
    const objects = await render();
    const executor = find(objects, "Deployment", "-executor");
    const env = envOf(executor.spec.template.spec.containers[0]);
    expect(env.get("EXECUTOR_SHUTDOWN_GRACE_SECONDS")?.value).toBe("330");
    expect(executor.spec.template.spec.terminationGracePeriodSeconds).toBe(360);
    expect(env.get("METRICS_PORT")?.value).toBe("9464");
    expect(find(objects, "ConfigMap", "-config").data.TTR_BLOCK_PRIVATE_NETWORKS).toBe("true");
    const res = await helm(["template", RELEASE, ".", "--set", "executor.terminationGracePeriodSeconds=300"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/terminationGracePeriodSeconds must exceed/);
  });

  it("TTR_ALLOW_NETWORKS: empty by default, else config.allowNetworks joined by commas, for every executor", async () => {
    const objects = await render();
    expect(find(objects, "ConfigMap", "-config").data.TTR_ALLOW_NETWORKS).toBe("");
    const executor = find(objects, "Deployment", "-executor").spec.template.spec.containers[0];
    expect(executor.envFrom).toEqual([{ configMapRef: { name: `${RELEASE}-ttr-config` } }]);
    const set = await render([], ["config.allowNetworks={10.20.0.0/16,fd00:1::/64}"]);
    expect(find(set, "ConfigMap", "-config").data.TTR_ALLOW_NETWORKS).toBe("10.20.0.0/16,fd00:1::/64");
    expect(find(set, "ConfigMap", "-config").data.TTR_BLOCK_PRIVATE_NETWORKS).toBe("true");
  });

  it("sets the retention in days for every component (30 by default, 0 keeps everything)", async () => {
    expect(find(await render(), "ConfigMap", "-config").data.TTR_RETENTION_DAYS).toBe("30");
    expect(find(await render([], ["config.retentionDays=0"]), "ConfigMap", "-config").data.TTR_RETENTION_DAYS).toBe("0");
    expect((await helm(["template", RELEASE, ".", "--set", "config.retentionDays=-1"])).code).not.toBe(0);
  });

  it("runs migrations as a pre-install/pre-upgrade hook Job, its connection Secret a hook created before it", async () => {
    const objects = await render();
    const job = find(objects, "Job", "-migrate");
    const ann = job.metadata.annotations;
    expect(ann["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    expect(ann["helm.sh/hook-delete-policy"]).toBe("before-hook-creation,hook-succeeded");
    expect(job.spec.template.spec.containers[0].args).toEqual(["migrate"]);
    const secretRef = envOf(job.spec.template.spec.containers[0]).get("DATABASE_URL")?.valueFrom.secretKeyRef;
    const hookSecret = find(objects, "Secret", "-migrate");
    expect(secretRef.name).toBe(hookSecret.metadata.name);
    expect(hookSecret.metadata.annotations["helm.sh/hook"]).toBe(ann["helm.sh/hook"]);
    expect(Number(hookSecret.metadata.annotations["helm.sh/hook-weight"])).toBeLessThan(Number(ann["helm.sh/hook-weight"]));
    // nothing else the release creates: no ServiceAccount of its own
    expect(job.spec.template.spec.serviceAccountName).toBeUndefined();
  });

  it("a config change rolls the pods (checksum/config)", async () => {
    const checksum = async (set: string[]) => find(await render([], set), "Deployment", "-api").spec.template.metadata.annotations["checksum/config"];
    expect(await checksum([])).toBe(await checksum([]));
    expect(await checksum(["config.logLevel=debug"])).not.toBe(await checksum([]));
    expect(await checksum(["connection.redisUrl=redis://r:6379"])).not.toBe(await checksum([]));
  });

  it("TTR_SECRET_KEY: none by default; from a Secret for the executor and the migrations Job only; a change rolls the pods", async () => {
    const secretKeyEnv = (objects: K8sObject[]) =>
      Object.fromEntries(
        podTemplates(objects).flatMap((p) => p.spec.containers.map((c: K8sObject) => [`${p.owner.metadata.name}/${c.name}`, envOf(c).get("TTR_SECRET_KEY")?.valueFrom?.secretKeyRef ?? envOf(c).get("TTR_SECRET_KEY")])),
      );
    const none = await render();
    expect(Object.values(secretKeyEnv(none)).filter(Boolean)).toEqual([]);
    expect(none.filter((o) => o.kind === "Secret" && o.metadata.name.endsWith("-secret-key"))).toEqual([]);

    const key = "q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA=";
    const objects = await render([], [`secretKey.value=${key}`, `secretKey.previousValue=${"ab".repeat(32)}`]);
    const secret = find(objects, "Secret", "-secret-key");
    expect(secret.stringData).toEqual({ TTR_SECRET_KEY: key, TTR_SECRET_KEY_PREVIOUS: "ab".repeat(32) });
    const refs = secretKeyEnv(objects);
    const holders = Object.entries(refs).filter(([, ref]) => ref).map(([name]) => name);
    expect(holders.map((n) => n.replace(/^.*?-ttr-/, "")).sort()).toEqual(["executor/executor", "migrate/migrate"]);
    for (const name of holders) expect(refs[name]).toMatchObject({ name: secret.metadata.name, key: "TTR_SECRET_KEY" });
    expect(Object.entries(refs).find(([n]) => n.includes("executor"))![1].optional).toBeUndefined();
    expect(Object.entries(refs).find(([n]) => n.includes("migrate"))![1].optional).toBe(true);
    for (const cm of objects.filter((o) => o.kind === "ConfigMap")) expect(JSON.stringify(cm.data)).not.toContain(key);

    const checksum = (o: K8sObject[]) => find(o, "Deployment", "-executor").spec.template.metadata.annotations["checksum/config"];
    expect(checksum(objects)).not.toBe(checksum(none));

    const existing = await render([], ["secretKey.existingSecret=my-key", `secretKey.value=${key}`]);
    expect(existing.filter((o) => o.kind === "Secret" && o.metadata.name.endsWith("-secret-key"))).toEqual([]);
    expect(envOf(find(existing, "Deployment", "-executor").spec.template.spec.containers[0]).get("TTR_SECRET_KEY")?.valueFrom.secretKeyRef.name).toBe("my-key");

    const bad = await helm(["template", RELEASE, ".", "--set", "secretKey.value=not-a-key"]);
    expect(bad.code).not.toBe(0);
  });

  it("has a helm test Pod that checks the api's /readyz", async () => {
    const pod = (await render()).find((o) => o.kind === "Pod")!;
    expect(pod.metadata.annotations["helm.sh/hook"]).toBe("test");
    expect(envOf(pod.spec.containers[0]).get("READYZ_URL")?.value).toBe(`http://${RELEASE}-ttr-api:80/readyz`);
  });

  it("NOTES tell how to reach the api, create a project with the CLI and scale executors", async () => {
    const res = await helm(["install", RELEASE, ".", "--dry-run=client", "--namespace", NAMESPACE, "-f", "ci/hpa-values.yaml"]);
    expect(res.code, res.stderr).toBe(0);
    const notes = res.stdout.slice(res.stdout.indexOf("NOTES:"));
    expect(notes).toContain(`kubectl -n ${NAMESPACE} port-forward svc/${RELEASE}-ttr-api`);
    expect(notes).toContain(`kubectl -n ${NAMESPACE} exec deploy/${RELEASE}-ttr-api -- ttr project create --name acme --json`);
    expect(notes).toContain(`kubectl -n ${NAMESPACE} get hpa ${RELEASE}-ttr-executor`);
  });

  it("NOTES with an Ingress and KEDA: $TTR is the Ingress host, and the ScaledObject is named", async () => {
    const res = await helm([
      "install", RELEASE, ".", "--dry-run=client", "--namespace", NAMESPACE, "-f", "ci/keda-values.yaml",
      "--set", "api.ingress.enabled=true",
    ]);
    expect(res.code, res.stderr).toBe(0);
    const notes = res.stdout.slice(res.stdout.indexOf("NOTES:"));
    expect(notes).toContain("TTR=http://ttr.example.com\n");
    expect(notes).not.toContain("port-forward");
    expect(notes).toContain(`kubectl -n ${NAMESPACE} get scaledobject ${RELEASE}-ttr-executor`);
  });

  it("api TTR_COOKIE_SECURE: true by default, false when set so", async () => {
    const secure = async (set: string[]) =>
      envOf(find(await render([], set), "Deployment", "-api").spec.template.spec.containers[0]).get("TTR_COOKIE_SECURE")?.value;
    expect(await secure([])).toBe("true");
    expect(await secure(["api.cookieSecure=false"])).toBe("false");
  });

  it("api TRUST_PROXY: none by default, one hop behind the chart's Ingress, or as set", async () => {
    const trust = async (set: string[]) =>
      envOf(find(await render([], set), "Deployment", "-api").spec.template.spec.containers[0]).get("TRUST_PROXY")?.value;
    expect(await trust([])).toBe("false");
    expect(await trust(["api.ingress.enabled=true"])).toBe("1");
    expect(await trust(["api.trustProxy=10.0.0.0/8"])).toBe("10.0.0.0/8");
  });
});

describe("values schema", () => {
  it.each([
    ["an unknown top-level key", "bogus=1", /additional properties 'bogus' not allowed/],
    ["a wrong type", "api.replicas=notanumber", /api\/replicas/],
    ["an unknown nested key", "executor.keda.bogus=1", /additional properties 'bogus' not allowed/],
    ["an unknown probe setting", "scheduler.probes.liveness.path=/x", /additional properties 'path' not allowed/],
    ["an allowed network that is not a CIDR range", "config.allowNetworks={10.0.0.1}", /config\/allowNetworks\/0/],
  ])("rejects %s", async (_what, set, message) => {
    const res = await helm(["template", RELEASE, ".", "--set", set]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(message);
  });
});

describe("image tags", () => {
  it("refuses image.tag=latest with a message saying what to set instead", async () => {
    const res = await helm(["template", RELEASE, ".", "--set", "image.tag=latest"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('image.tag "latest" is refused: it names no fixed build. Leave image.tag empty for the chart\'s appVersion (0.1.0), set the tag of a release (--set image.tag=0.1.0), or pin the build with image.digest=sha256:');
  });

  it("takes latest when a digest pins the build", async () => {
    const digest = `sha256:${"a".repeat(64)}`;
    const images = new Set(imagesOf(await render([], ["image.tag=latest", `image.digest=${digest}`])));
    expect([...images]).toEqual([`ttr:latest@${digest}`]);
  });

  it.each(["postgresql", "redis"])("refuses latest for the evaluation %s, naming the value", async (db) => {
    const res = await helm(["template", RELEASE, ".", "--set", `evaluation.${db}.enabled=true`, "--set", `evaluation.${db}.image.tag=latest`]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(`evaluation.${db}.image.tag "latest" is refused`);
  });
});

describe("scaling the executors", () => {
  it("HPA: targets the executor Deployment, which leaves its replica count to it", async () => {
    const objects = await render(["ci/hpa-values.yaml"]);
    const hpa = find(objects, "HorizontalPodAutoscaler", "-executor");
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: `${RELEASE}-ttr-executor` });
    expect(hpa.spec.metrics.map((m: K8sObject) => m.resource.name)).toEqual(["cpu", "memory"]);
    expect(find(objects, "Deployment", "-executor").spec.replicas).toBeUndefined();
    expect(find(objects, "Deployment", "-api").spec.replicas).toBe(2);
  });

  it("KEDA: a prometheus trigger on ttr_queue_depth at the configured server", async () => {
    const objects = await render(["ci/keda-values.yaml"]);
    const so = objects.find((o) => o.kind === "ScaledObject")!;
    expect(so.apiVersion).toBe("keda.sh/v1alpha1");
    expect(so.spec.scaleTargetRef.name).toBe(`${RELEASE}-ttr-executor`);
    expect(so.spec).toMatchObject({ minReplicaCount: 1, maxReplicaCount: 30 });
    const [trigger] = so.spec.triggers;
    expect(trigger.type).toBe("prometheus");
    expect(trigger.metadata.serverAddress).toBe("http://prometheus-operated.monitoring.svc:9090");
    // this release's scheduler pods, by labels a ServiceMonitor and a pod-annotation scrape both give
    // (chart-limits.test.ts checks the pattern against pod names Kubernetes makes)
    expect(trigger.metadata.query).toBe(`max(ttr_queue_depth{namespace="${NAMESPACE}",pod=~"${RELEASE}-ttr-scheduler-[a-z0-9]+-[a-z0-9]+"})`);
    expect(trigger.metadata.threshold).toBe("50");
    expect(find(objects, "Deployment", "-executor").spec.replicas).toBeUndefined();
    // the migration Job reads the existing Secret
    const job = find(objects, "Job", "-migrate");
    expect(envOf(job.spec.template.spec.containers[0]).get("DATABASE_URL")?.valueFrom.secretKeyRef).toEqual({ name: "ttr-connection", key: "DATABASE_URL" });
    expect(objects.filter((o) => o.kind === "Secret")).toEqual([]);
  });

  it("refuses KEDA without a Prometheus address, and KEDA together with the HPA", async () => {
    const noServer = await helm(["template", RELEASE, ".", "--set", "executor.keda.enabled=true"]);
    expect(noServer.code).not.toBe(0);
    expect(noServer.stderr).toMatch(/serverAddress is required/);
    const both = await helm(["template", RELEASE, ".", "-f", "ci/keda-values.yaml", "--set", "executor.autoscaling.enabled=true"]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/enable one/);
  });
});

describe("the executors' NetworkPolicy", () => {
  it("allows the internet except private, shared and link-local ranges, plus DNS, PostgreSQL and Redis", async () => {
    const np = find(await render(["ci/external-db-values.yaml"]), "NetworkPolicy", "-executor");
    expect(np.spec.policyTypes).toEqual(["Egress"]);
    const [internet, allowed, dns, postgres, redis] = np.spec.egress;
    expect(internet.to[0].ipBlock.cidr).toBe("0.0.0.0/0");
    // config.allowNetworks: let through the executors' own check, so allowed here too
    expect(allowed).toEqual({ to: [{ ipBlock: { cidr: "10.30.0.0/16" } }] });
    expect(internet.to[0].ipBlock.except).toEqual(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10"]);
    expect(dns.ports).toEqual([
      { protocol: "UDP", port: 53 },
      { protocol: "TCP", port: 53 },
    ]);
    expect(postgres).toEqual({ to: [{ ipBlock: { cidr: "10.20.0.15/32" } }], ports: [{ protocol: "TCP", port: 5432 }] });
    expect(redis).toEqual({ to: [{ ipBlock: { cidr: "10.20.0.16/32" } }], ports: [{ protocol: "TCP", port: 6379 }] });
  });
});

describe("evaluation databases", () => {
  it("a PostgreSQL StatefulSet and a Redis Deployment with Services, wired into the connection Secret", async () => {
    const objects = await render(["ci/evaluation-values.yaml"]);
    const pg = find(objects, "StatefulSet", "-postgresql");
    expect(pg.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe("1Gi");
    expect(pg.spec.template.spec.containers[0].args).toEqual(["-c", "wal_compression=lz4"]);
    expect(find(objects, "Deployment", "-redis").spec.replicas).toBe(1);
    expect(find(objects, "Service", "-postgresql").spec.ports[0].port).toBe(5432);
    expect(find(objects, "Service", "-redis").spec.ports[0].port).toBe(6379);
    const secret = find(objects, "Secret", "-connection");
    expect(secret.stringData.DATABASE_URL).toBe(`postgresql://ttr:ttr-evaluation@${RELEASE}-ttr-postgresql:5432/ttr`);
    expect(secret.stringData.REDIS_URL).toBe(`redis://:ttr-evaluation@${RELEASE}-ttr-redis:6379/0`);
    // the database is created with the release: migrate after install, once its port answers
    const job = find(objects, "Job", "-migrate");
    expect(job.metadata.annotations["helm.sh/hook"]).toBe("post-install,pre-upgrade");
    expect(job.spec.template.spec.initContainers[0].name).toBe("wait-for-postgresql");
    // and the executors may reach both
    const np = find(objects, "NetworkPolicy", "-executor");
    const peers = np.spec.egress.flatMap((r: K8sObject) => r.to ?? []).map((p: K8sObject) => p.podSelector?.matchLabels?.["app.kubernetes.io/component"]);
    expect(peers).toEqual(expect.arrayContaining(["postgresql", "redis"]));
  });
});
