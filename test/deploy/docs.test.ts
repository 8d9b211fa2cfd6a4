// What the operator documentation tells to run or set, checked against what
// the chart and deploy/compose.yaml render: the CLI commands that need
// TTR_SECRET_KEY are run where the key is, variables the chart sets from its
// own values are not sent to extraEnv, and the restore procedure's scale
// command stops what its text says.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { envOf, type K8sObject, renderRelease } from "./chart.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

// The pages use the release name "ttr" (deploy/ttr-api) or <release>.
const DOC_RELEASE = "ttr";
const EVERYTHING = [
  `secretKey.value=${"a".repeat(64)}`,
  `secretKey.previousValue=${"b".repeat(64)}`,
  "redis.existingSecret=r",
  "redis.sentinelPasswordKey=s",
  "redis.tlsCaSecret=ca",
  "evaluation.postgresql.enabled=true",
  "evaluation.redis.enabled=true",
];
const rendered = renderRelease(DOC_RELEASE, [], EVERYTHING);

/** Commands that fail, or silently skip work, without TTR_SECRET_KEY. */
const NEEDS_KEY = /^ttr (project signing-secret|migrate)\b/;

describe("the admin CLI in the cluster", () => {
  const pages = ["deploy/README.md", "docs/operations.md", "docs/cli.md", "docs/delivery-extras.md"];

  it.each(pages)("%s: commands needing TTR_SECRET_KEY run in a pod that has it, and the page says where that is", async (page) => {
    const deployments = new Map((await rendered).filter((o) => o.kind === "Deployment").map((o) => [o.metadata.name as string, o]));
    const hasKey = (name: string) => envOf(deployments.get(name)!.spec.template.spec.containers[0]).has("TTR_SECRET_KEY");
    const runs = [...read(page).matchAll(/kubectl (?:-n \S+ )?exec deploy\/(\S+) -- (ttr[^`\n]*)/g)].map(([, target, command]) => ({
      deployment: target!.replace("<release>-ttr-", `${DOC_RELEASE}-`),
      command: command!.trim(),
    }));
    expect(runs.length, page).toBeGreaterThan(0);
    for (const { deployment } of runs) expect(deployments.has(deployment), `${page}: deploy/${deployment}`).toBe(true);
    for (const run of runs.filter((r) => NEEDS_KEY.test(r.command))) expect(hasKey(run.deployment), `${page}: ${run.command} in ${run.deployment}`).toBe(true);
    // the api has no key; a page that runs the CLI there also names a pod with the key
    expect(hasKey(`${DOC_RELEASE}-api`)).toBe(false);
    expect(
      runs.some((r) => hasKey(r.deployment)),
      `${page}: no command in a pod with TTR_SECRET_KEY`,
    ).toBe(true);
    expect(read(page)).toContain("signing-secret");
  });

  it("with Docker Compose: commands needing the key run in a service that has it", () => {
    const compose = parse(read("deploy/compose.yaml"), { merge: true }) as { services: Record<string, K8sObject> };
    const runs = ["deploy/README.md", "deploy/compose.yaml", "docs/delivery-extras.md"].flatMap((page) =>
      [...read(page).matchAll(/docker compose -f deploy\/compose\.yaml exec (\S+) (ttr[^`\n]*)/g)].map(([, service, command]) => ({ page, service: service!, command: command!.trim() })),
    );
    const keyed = runs.filter((r) => NEEDS_KEY.test(r.command));
    expect(keyed.length).toBeGreaterThan(0);
    for (const r of keyed) expect(Object.keys(compose.services[r.service]?.environment ?? {}), `${r.page}: ${r.command} in ${r.service}`).toContain("TTR_SECRET_KEY");
  });
});

describe("Helm values in the docs", () => {
  /** Every variable the chart sets from one of its values (container env and its ConfigMap). */
  async function chartSet(): Promise<Set<string>> {
    const names = new Set<string>();
    for (const o of await rendered) {
      if (o.kind === "ConfigMap" && o.metadata.name.endsWith("-config")) for (const k of Object.keys(o.data)) names.add(k);
      for (const c of o.spec?.template?.spec?.containers ?? []) for (const name of envOf(c).keys()) names.add(name);
    }
    return names;
  }
  const variables = (text: string) => [...text.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map((m) => m[1]!);

  it.each(["docs/operations.md", "docs/configuration.md", "deploy/README.md"])("%s: no variable the chart sets itself is sent to extraEnv", async (page) => {
    const set = await chartSet();
    expect(set).toContain("TTR_SECRET_KEY_PREVIOUS");
    const wrong: string[] = [];
    for (const row of read(page).split("\n").filter((l) => l.startsWith("|") && l.includes("extraEnv"))) {
      const cells = row.split("|").slice(1, -1);
      // a variable's own row (configuration.md), or the extraEnv row's examples
      const named = variables(cells[0]!).length ? variables(cells[0]!) : cells.slice(1).flatMap(variables);
      wrong.push(...named.filter((v) => set.has(v)));
    }
    expect(wrong).toEqual([]);
  });

  it("values.yaml: no extraEnv example the chart sets itself", async () => {
    const set = await chartSet();
    const lines = read("deploy/helm/ttr/values.yaml").split("\n");
    const comments = lines.flatMap((line, i) => {
      if (!/^\s+extraEnv:/.test(line)) return [];
      const above: string[] = [];
      for (let j = i - 1; j >= 0 && /^\s+#/.test(lines[j]!); j--) above.push(lines[j]!);
      return above;
    });
    const named = comments.flatMap((c) => [...c.matchAll(/name: ([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((v) => set.has(v))).toEqual([]);
  });

  it("operations.md's Helm values table lists the secret key and the allowed networks", () => {
    const section = read("docs/operations.md").split("## Helm values")[1]!.split("\n## ")[0]!;
    for (const value of ["`secretKey.value`", "`secretKey.previousValue`", "`secretKey.existingSecret`", "`config.allowNetworks`"]) expect(section).toContain(value);
  });
});

/** Does a kubectl label selector (equality and set-based terms) select these labels? */
function selects(selector: string, labels: Record<string, string>): boolean {
  const terms = selector.match(/[^,(]+(\([^)]*\))?/g)!.map((t) => t.replace(/^,/, "").trim());
  return terms.every((term) => {
    const set = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (set) {
      const values = set[3]!.split(",").map((v) => v.trim());
      return set[2] === "in" ? values.includes(labels[set[1]!]!) : !values.includes(labels[set[1]!]!);
    }
    const eq = /^([^!=]+)(==|=|!=)(.*)$/.exec(term);
    if (eq) return eq[2] === "!=" ? labels[eq[1]!] !== eq[3] : labels[eq[1]!] === eq[3];
    return term.startsWith("!") ? !(term.slice(1) in labels) : term in labels;
  });
}

describe("backup and restore", () => {
  it("the command under 'Stop the scheduler and executors' scales exactly those down", async () => {
    const step = read("docs/operations.md").split("Stop the scheduler and executors")[1]!.split("\n2. ")[0]!;
    const command = step.replace(/\\\n\s*/g, " ");
    expect(command).toMatch(/kubectl (-n \S+ )?scale deploy/);
    const selector = /-l '([^']+)'/.exec(command)?.[1] ?? /-l (\S+)/.exec(command)![1]!;
    expect(selects("a=1,b in (x,y)", { a: "1", b: "y" }) && !selects("a=1,b in (x,y)", { a: "1", b: "z" })).toBe(true);
    const chosen = (await rendered).filter((o) => o.kind === "Deployment" && selects(selector, o.metadata.labels)).map((o) => o.metadata.name);
    expect(chosen.sort()).toEqual([`${DOC_RELEASE}-executor`, `${DOC_RELEASE}-scheduler`]);
  });
});
