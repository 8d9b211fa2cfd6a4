// The chart's Redis values (password from a Secret, TLS with a CA Secret,
// Sentinels) reach every long-running pod as the variables the services
// read; PgBouncer's transaction mode is refused with the reason.
import { describe, expect, it } from "vitest";
import { envOf, find, helm, type K8sObject, RELEASE, render } from "./chart.js";

const COMPONENTS = ["-api", "-scheduler", "-executor"];
const containerOf = (objects: K8sObject[], c: string) => find(objects, "Deployment", c).spec.template.spec.containers[0];

describe("Redis", () => {
  it("by default: no TLS, no Sentinels, no password variable, no extra volume", async () => {
    const objects = await render();
    expect(find(objects, "ConfigMap", "-config").data).toMatchObject({ REDIS_TLS: "false", REDIS_SENTINELS: "", REDIS_SENTINEL_NAME: "mymaster" });
    expect(find(objects, "ConfigMap", "-config").data.REDIS_TLS_CA_FILE).toBeUndefined();
    for (const c of COMPONENTS) {
      const container = containerOf(objects, c);
      expect(envOf(container).has("REDIS_PASSWORD")).toBe(false);
      expect(envOf(container).get("REDIS_URL")?.valueFrom.secretKeyRef.optional).toBeUndefined();
      expect(container.volumeMounts.map((m: K8sObject) => m.name)).toEqual(["tmp"]);
    }
  });

  it("Sentinels, TLS with a CA Secret and both passwords from a Secret, on the api, scheduler and executors", async () => {
    const objects = await render(["ci/operations-values.yaml"]);
    expect(find(objects, "ConfigMap", "-config").data).toMatchObject({
      REDIS_TLS: "true",
      REDIS_SENTINELS: "redis-node-0.redis-headless:26379,redis-node-1.redis-headless:26379,redis-node-2.redis-headless:26379",
      REDIS_SENTINEL_NAME: "ttr-primary",
      REDIS_TLS_CA_FILE: "/etc/ttr/redis-tls/ca.crt",
    });
    for (const c of COMPONENTS) {
      const pod = find(objects, "Deployment", c).spec.template.spec;
      const env = envOf(pod.containers[0]);
      expect(env.get("REDIS_PASSWORD")?.valueFrom.secretKeyRef, c).toEqual({ name: "ttr-redis", key: "redis-password" });
      expect(env.get("REDIS_SENTINEL_PASSWORD")?.valueFrom.secretKeyRef, c).toEqual({ name: "ttr-redis", key: "sentinel-password" });
      // with Sentinels the connection Secret may lack REDIS_URL
      expect(env.get("REDIS_URL")?.valueFrom.secretKeyRef.optional, c).toBe(true);
      expect(pod.containers[0].volumeMounts).toContainEqual({ name: "redis-tls", mountPath: "/etc/ttr/redis-tls", readOnly: true });
      expect(pod.volumes).toContainEqual({ name: "redis-tls", secret: { secretName: "ttr-redis-ca", items: [{ key: "ca.crt", path: "ca.crt" }] } });
    }
    // the migration Job needs no Redis
    expect(envOf(find(objects, "Job", "-migrate").spec.template.spec.containers[0]).has("REDIS_PASSWORD")).toBe(false);
  });

  it("a CA Secret alone turns TLS on; redis.tls alone mounts nothing", async () => {
    const ca = find(await render([], ["redis.tlsCaSecret=my-ca", "redis.tlsCaKey=bundle.pem"]), "ConfigMap", "-config").data;
    expect(ca).toMatchObject({ REDIS_TLS: "true", REDIS_TLS_CA_FILE: "/etc/ttr/redis-tls/bundle.pem" });
    const tlsOnly = await render([], ["redis.tls=true"]);
    expect(find(tlsOnly, "ConfigMap", "-config").data.REDIS_TLS).toBe("true");
    expect(containerOf(tlsOnly, "-api").volumeMounts.map((m: K8sObject) => m.name)).toEqual(["tmp"]);
  });

  it("a password Secret without Sentinels: REDIS_PASSWORD only, REDIS_URL still required", async () => {
    const objects = await render([], ["redis.existingSecret=r", "connection.redisUrl=redis://redis:6379"]);
    const env = envOf(containerOf(objects, "-executor"));
    expect(env.get("REDIS_PASSWORD")?.valueFrom.secretKeyRef).toEqual({ name: "r", key: "redis-password" });
    expect(env.has("REDIS_SENTINEL_PASSWORD")).toBe(false);
    expect(env.get("REDIS_URL")?.valueFrom.secretKeyRef.optional).toBeUndefined();
  });

  it("a Redis setting change rolls the pods (checksum/config)", async () => {
    const checksum = async (set: string[]) => find(await render([], set), "Deployment", "-executor").spec.template.metadata.annotations["checksum/config"];
    expect(await checksum(["redis.sentinels={s0:26379}"])).not.toBe(await checksum([]));
  });

  it("with networkPolicy: the executors may reach each Sentinel's port (26379 when none is given) at the Redis peers", async () => {
    const redisRule = async (set: string[]) => {
      const np = find(await render([], ["networkPolicy.enabled=true", "connection.existingSecret=c", "networkPolicy.redis.peers[0].podSelector.matchLabels.app=redis", ...set]), "NetworkPolicy", "-executor");
      return np.spec.egress.find((r: K8sObject) => r.to?.[0]?.podSelector?.matchLabels?.app === "redis");
    };
    const ports = (rule: K8sObject) => rule.ports.map((p: K8sObject) => `${p.protocol}/${p.port}`);
    expect(ports(await redisRule([]))).toEqual(["TCP/6379"]);
    const rule = await redisRule(["redis.sentinels={redis-node-0.redis-headless:26379,redis-node-1.redis-headless:26379,[fd00::7]:26380,sentinel-2}"]);
    expect(ports(rule)).toEqual(["TCP/6379", "TCP/26379", "TCP/26380"]);
    expect(rule.to).toEqual([{ podSelector: { matchLabels: { app: "redis" } } }]);
  });

  it.each([
    ["a Sentinel that is not host:port", "redis.sentinels={s0:26379:1}", /redis\/sentinels\/0/],
    ["an empty primary name", "redis.sentinelName=", /redis\/sentinelName/],
    ["an unknown key", "redis.host=r", /additional properties 'host' not allowed/],
  ])("schema: refuses %s", async (_what, set, message) => {
    const res = await helm(["template", RELEASE, ".", "--set", set]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(message);
  });
});

describe("PgBouncer", () => {
  it("session mode renders; transaction mode is refused, saying why and what to do", async () => {
    await expect(render([], ["connection.pgbouncerPoolMode=session"])).resolves.toBeDefined();
    const res = await helm(["template", RELEASE, ".", "--set", "connection.pgbouncerPoolMode=transaction"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("connection.pgbouncerPoolMode=transaction is refused: ttr needs one PostgreSQL session per pool connection");
    expect(res.stderr).toContain("Run PgBouncer with pool_mode=session");
  });

  it("a databaseUrl with pgbouncer=true is refused too", async () => {
    const res = await helm(["template", RELEASE, ".", "--set", "connection.databaseUrl=postgresql://ttr@bouncer:6432/ttr?pgbouncer=true"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("connection.databaseUrl has pgbouncer=true (transaction pooling), which ttr refuses");
  });

  it("schema: refuses an unknown pool mode", async () => {
    const res = await helm(["template", RELEASE, ".", "--set", "connection.pgbouncerPoolMode=statement"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/pgbouncerPoolMode/);
  });
});
