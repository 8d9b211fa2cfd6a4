// docs/quota.md: the monthly quota is exact under concurrent calls.
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi({ quota: 150 });
});
afterAll(() => api.close());

it("200 parallel /schedule calls against a quota of 150: 150 successes with 149…0 each once, then 50 × 402", async () => {
  const calls = Array.from({ length: 200 }, (_, i) =>
    api.call("POST", "/schedule", {
      "ttr-api-key": api.apiKey,
      "ttr-url": "http://127.0.0.1:9/",
      "ttr-scheduled-at": "now | add 1h",
      "ttr-custom-key": `c${i}`,
    }),
  );
  const replies = await Promise.all(calls);
  const ok = replies.filter((r) => r.status === 200);
  const refused = replies.filter((r) => r.status === 402);
  expect(ok).toHaveLength(150);
  expect(refused).toHaveLength(50);
  for (const r of refused) expect(r.json()).toEqual({ _tag: "QuotaExceeded", message: "Monthly quota of 150 triggers exceeded" });
  const remaining = ok.map((r) => r.json().monthQuotaRemaining as number).sort((a, b) => a - b);
  expect(remaining).toEqual(Array.from({ length: 150 }, (_, i) => i));
  const [row] = await api.db.$queryRawUnsafe<Array<{ count: number }>>(`SELECT count(*)::int AS count FROM triggers`);
  const count = row?.count;
  expect(count).toBe(150);
});
