// The dependency audit npm test runs first (scripts/audit.mjs): which
// advisories block, and how an audit that could not run is told apart.
import { expect, it } from "vitest";
import { judge, unreachable } from "../../scripts/audit.mjs";

const advisory = (module_name: string, severity: string, patched_versions: string) => ({ module_name, severity, patched_versions, title: `${module_name} issue`, url: "https://example.com" });

it("blocks a high or critical advisory with a fix to move to; lets the others through", () => {
  const judged = judge({
    advisories: {
      1: advisory("a", "critical", ">=2.0.1"),
      2: advisory("b", "high", ">=1.4.0"),
      3: advisory("c", "high", "<0.0.0"),
      4: advisory("d", "moderate", ">=3.0.0"),
      5: advisory("e", "low", ""),
    },
  });
  expect(judged.map((a) => [a.module, a.blocking])).toEqual([["a", true], ["b", true], ["c", false], ["d", false], ["e", false]]);
  expect(judge({ advisories: {} })).toEqual([]);
  expect(judge(null)).toEqual([]);
});

it("tells an unreachable advisory database from a report", () => {
  expect(unreachable("", "ERR_PNPM_AUDIT_BAD_RESPONSE  The audit endpoint responded with 405")).toBe("ERR_PNPM_AUDIT_BAD_RESPONSE");
  expect(unreachable("", "getaddrinfo ENOTFOUND registry")).toBe("ENOTFOUND");
  expect(unreachable('{"advisories":{}}', "")).toBeNull();
});
