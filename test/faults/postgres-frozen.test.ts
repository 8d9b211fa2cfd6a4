// PostgreSQL frozen: every process of the server stopped (SIGSTOP) with the
// api's connections still open, as when it hangs or the network between
// them drops packets. Nothing is refused, nothing answers. A request that
// needs it must still answer 503 Unavailable within 5 s (RELIABILITY.md)
// instead of waiting for an answer that may never come, and the api must
// work again once the server resumes.
import { expect, it } from "vitest";
import { figure, UNAVAILABLE, until, useRig } from "./rig.js";

const theRig = useRig();

const schedule = (path: string, key?: string) => {
  const rig = theRig();
  return rig.call("POST", "/schedule", {
    "ttr-api-key": rig.apiKey,
    "ttr-url": `${rig.target.base}/${path}`,
    "ttr-scheduled-at": "now | add 1h",
    ...(key ? { "ttr-custom-key": key } : {}),
  });
};

it("PostgreSQL frozen: /schedule (plain and by key) and DELETE /cancel answer 503 Unavailable within 5 s; once it resumes, /schedule stores again", async () => {
  const rig = theRig();
  // connections open in every pool first, as in a running api
  expect((await schedule("warm")).status).toBe(200);
  expect((await schedule("warm-key", "warm")).status).toBe(200);
  rig.pg.freeze(true);
  try {
    const calls: Array<[string, () => ReturnType<typeof schedule>]> = [
      ["/schedule", () => schedule("frozen")],
      ["/schedule with a custom key", () => schedule("frozen-key", "frozen")],
      ["DELETE /cancel", () => rig.call("DELETE", "/cancel", { "ttr-api-key": rig.apiKey, "ttr-custom-key": "warm" })],
    ];
    const answers = await Promise.all(
      calls.map(async ([label, call]) => {
        const asked = Date.now();
        const res = await call();
        return { label, res, took: Date.now() - asked };
      }),
    );
    for (const { label, res, took } of answers) {
      expect(took, label).toBeLessThan(5000);
      expect(res.status, label).toBe(503);
      expect(res.json(), label).toEqual(UNAVAILABLE);
      expect(Number(res.headers["retry-after"]), label).toBeGreaterThan(0);
      figure("PostgreSQL frozen", `${label} answered 503 in`, took / 1000, "s");
    }
  } finally {
    rig.pg.freeze(false);
  }
  const resumed = Date.now();
  const at = await until(async () => (await schedule("after")).status === 200, 10_000, "/schedule answers 200 again");
  figure("PostgreSQL frozen", "/schedule stored again after the server resumed", (at - resumed) / 1000, "s");
}, 60_000);
