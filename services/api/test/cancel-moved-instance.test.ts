// Cancelling one instance of a recurring trigger by its own ID after it was
// moved to another time (docs/cron.md, "Cancelling one instance"): it
// stands for one run, the next one not already skipped, wherever it was
// moved, and the next instance is the run after that one.
import { nextCronTime } from "@ttr/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type TestApi } from "../../../test/support/api.js";
import { generatorById, instancesOf } from "../../../test/support/rows.js";

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function recurring(cron: string): Promise<{ generatorId: string; instanceId: string; at: string }> {
  const res = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/", "ttr-scheduled-at": cron });
  expect(res.status, res.text).toBe(200);
  const generatorId = res.json().triggerId as string;
  const [instance] = await instancesOf(api.db, generatorId);
  return { generatorId, instanceId: instance!.id, at: instance!.scheduledAt.toISOString() };
}

async function move(instanceId: string, at: string): Promise<void> {
  const res = await api.call("POST", "/schedule", { "ttr-api-key": api.apiKey, "ttr-url": "http://127.0.0.1:9/", "ttr-trigger-id": instanceId, "ttr-scheduled-at": at });
  expect(res.json()).toMatchObject({ operation: "reschedule", kind: "job", scheduledAt: new Date(at).toISOString() });
}

/** Cancels by ID; answers the times of the recurring trigger's pending instances, and the cancel's time span. */
async function cancel(generatorId: string, instanceId: string) {
  const from = new Date();
  const res = await api.call("DELETE", "/cancel", { "ttr-api-key": api.apiKey, "ttr-trigger-id": instanceId });
  const to = new Date();
  expect(res.status, res.text).toBe(204);
  expect((await generatorById(api.db, generatorId))?.status).toBe("active");
  const pending = (await instancesOf(api.db, generatorId)).filter((i) => i.status === "registered");
  return { pending: pending.map((i) => i.scheduledAt.toISOString()), from, to };
}

const yearly = "cron(0 0 1 1 *)";
const newYear = (year: number) => new Date(Date.UTC(year, 0, 1)).toISOString();

describe("an instance moved by ID, then cancelled by ID", () => {
  it("moved later, years ahead: only the next run is skipped, not every run up to its new time", async () => {
    const hourly = await recurring("cron(0 * * * *)");
    await move(hourly.instanceId, "2030-01-01T00:30:00Z");
    const { pending, from, to } = await cancel(hourly.generatorId, hourly.instanceId);
    // The run after the next one at the moment of the cancel (an hour may turn meanwhile).
    const runAfterNext = (at: Date) => nextCronTime("0 * * * *", "UTC", nextCronTime("0 * * * *", "UTC", at)).toISOString();
    expect(pending).toHaveLength(1);
    expect([runAfterNext(from), runAfterNext(to)]).toContain(pending[0]);
  });

  it("moved later onto another run: it still stands for the next run only", async () => {
    const g = await recurring(yearly);
    const next = new Date(g.at).getUTCFullYear();
    await move(g.instanceId, newYear(next + 4));
    expect((await cancel(g.generatorId, g.instanceId)).pending).toEqual([newYear(next + 1)]);
  });

  it("moved earlier: it stands for the run it was created for, which is skipped too", async () => {
    const g = await recurring(yearly);
    const next = new Date(g.at).getUTCFullYear();
    const earlier = new Date(Math.floor((Date.now() + new Date(g.at).getTime()) / 2_000) * 1_000).toISOString();
    await move(g.instanceId, earlier);
    expect((await cancel(g.generatorId, g.instanceId)).pending).toEqual([newYear(next + 1)]);
  });

  it("after a run already cancelled: the moved one stands for the next run not yet skipped", async () => {
    const g = await recurring(yearly);
    const next = new Date(g.at).getUTCFullYear();
    expect((await cancel(g.generatorId, g.instanceId)).pending).toEqual([newYear(next + 1)]);
    const [second] = (await instancesOf(api.db, g.generatorId)).filter((i) => i.status === "registered");
    await move(second!.id, "2040-06-01T00:00:00Z");
    expect((await cancel(g.generatorId, second!.id)).pending).toEqual([newYear(next + 2)]);
  });

  it("not moved: that run is skipped, as before", async () => {
    const g = await recurring(yearly);
    const next = new Date(g.at).getUTCFullYear();
    expect((await cancel(g.generatorId, g.instanceId)).pending).toEqual([newYear(next + 1)]);
  });
});
