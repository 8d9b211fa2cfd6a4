// The api's Ingress routes the public paths only: the public API, the
// session API, the dashboard and the API's self-description, never /metrics
// (nor /healthz and /readyz). Paths are matched as Kubernetes defines
// pathType Prefix and Exact, so the test says what any conformant Ingress
// controller would route.
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../services/api/src/openapi/index.js";
import { find, type K8sObject, RELEASE, render } from "./chart.js";

/** Kubernetes Ingress path matching: Exact is the whole path; Prefix compares path elements split by "/". */
function routes(rule: { path: string; pathType: string }, requestPath: string): boolean {
  if (rule.pathType === "Exact") return rule.path === requestPath;
  if (rule.pathType !== "Prefix") throw new Error(`pathType ${rule.pathType} has no portable meaning`);
  const elements = (p: string) => p.split("/").filter((e) => e !== "");
  const prefix = elements(rule.path);
  const request = elements(requestPath);
  return prefix.every((e, i) => request[i] === e);
}

const PUBLIC = [
  "/schedule",
  "/cancel",
  "/declare",
  "/bulk",
  "/tag-policies",
  "/tag-policies/4b1c",
  "/auth/login",
  "/auth/logout",
  "/triggers",
  "/triggers/4b1c/replay",
  "/executions",
  "/project",
  "/stats",
  "/overview",
  "/dead-letters/replay",
  "/dead-letters/discard",
  "/dashboard",
  "/dashboard/assets/index.js",
  "/openapi.json",
  "/reference",
];
const INTERNAL = ["/metrics", "/metrics/", "/metrics/x", "/healthz", "/readyz", "/"];

/** Every path the OpenAPI document describes, other than the probes and /metrics, with its parameters filled in. */
const DOCUMENTED = Object.keys((openApiDocument() as { paths: Record<string, unknown> }).paths)
  .map((p) => p.replace(/\{[^}]+\}/g, "4b1c"))
  .filter((p) => !INTERNAL.includes(p));

describe.each([
  ["ingress enabled on the default values", [] as string[], ["api.ingress.enabled=true"]],
  ["ci/external-db-values.yaml (Ingress with TLS)", ["ci/external-db-values.yaml"], [] as string[]],
])("the api's Ingress, %s", (_label, files, set) => {
  const rulesOf = async () => {
    const ingress = find(await render(files, set), "Ingress", "-api");
    return ingress.spec.rules.flatMap((r: K8sObject) => r.http.paths.map((p: K8sObject) => ({ host: r.host as string, ...p })));
  };

  it("routes every public path, and every path the OpenAPI document describes, to the api's http port", async () => {
    const rules = await rulesOf();
    expect(DOCUMENTED).toContain("/dead-letters/replay");
    for (const path of [...PUBLIC, ...DOCUMENTED]) {
      const matched = rules.filter((r: K8sObject) => routes(r as { path: string; pathType: string }, path));
      expect(matched.length, path).toBeGreaterThan(0);
      for (const r of matched) expect(r.backend.service, path).toEqual({ name: `${RELEASE}-ttr-api`, port: { name: "http" } });
    }
  });

  it.each(INTERNAL)("does not route %s", async (path) => {
    const rules = await rulesOf();
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.filter((r: K8sObject) => routes(r as { path: string; pathType: string }, path))).toEqual([]);
  });
});

describe("values", () => {
  it("refuses a host's own paths: the chart owns what the Ingress routes", async () => {
    await expect(render([], ["api.ingress.enabled=true", "api.ingress.hosts[0].host=ttr.example.com", "api.ingress.hosts[0].paths[0].path=/"])).rejects.toThrow(
      /additional properties 'paths' not allowed/,
    );
  });
});
