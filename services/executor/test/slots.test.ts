import { describe, expect, it } from "vitest";
import { AttemptSlots } from "../src/slots.js";

/** An attempt that takes `ms`, counting how many started, ran at once at most, and finished. */
function timedAttempt(ms: number) {
  const seen = { started: 0, running: 0, most: 0, finished: 0 };
  const attempt = async () => {
    seen.started++;
    seen.running++;
    seen.most = Math.max(seen.most, seen.running);
    await new Promise((r) => setTimeout(r, ms));
    seen.running--;
    seen.finished++;
  };
  return { attempt, seen };
}

describe("AttemptSlots", () => {
  it("holds enough jobs to fill the attempt slots left, and no more", async () => {
    const slots = new AttemptSlots(200, 20);
    expect(slots.jobLimit()).toBe(10);
    slots.took(20);
    expect(slots.jobLimit()).toBe(10); // 1 held + 180 left / 20
    slots.took(3);
    expect(slots.jobLimit()).toBe(11); // 2 held + ceil(177 / 20)
    // the first job's attempts are sent: their slots are free, the job still counts until the worker is done with it
    await Promise.all(Array.from({ length: 20 }, () => slots.send(async () => "sent")));
    expect(slots.jobLimit()).toBe(12); // 2 held + ceil(197 / 20)
    slots.released();
    await Promise.all(Array.from({ length: 3 }, () => slots.send(async () => "sent")));
    slots.released();
    expect(slots.jobLimit()).toBe(10);
  });

  it("frees an attempt's slot once it is sent, before its outcome is recorded, and says so", async () => {
    const slots = new AttemptSlots(1, 20);
    slots.took(2);
    let changes = 0;
    slots.onChange = () => changes++;
    const order: string[] = [];
    let recorded: () => void = () => {};
    const recording = new Promise<void>((r) => {
      recorded = r;
    });
    // the first attempt's outcome takes long to record; the second is sent meanwhile, in the one slot
    const first = slots.send(async () => "first").then(async (sent) => {
      order.push(`sent ${sent}`);
      await recording;
      order.push("first recorded");
    });
    const second = slots.send(async () => {
      order.push("second sending");
      return "second";
    });
    expect(await second).toBe("second");
    expect(order.sort()).toEqual(["second sending", "sent first"]);
    expect(changes).toBe(2);
    recorded();
    await first;
    expect(order.at(-1)).toBe("first recorded");
  });

  it("fills a limit that is no multiple of the job size: 50 slots take three jobs of 20", () => {
    const slots = new AttemptSlots(50, 20);
    expect(slots.jobLimit()).toBe(3);
    slots.took(20);
    slots.took(20);
    expect(slots.jobLimit()).toBe(3);
    slots.took(20); // 60 taken: 10 wait for a slot
    expect(slots.jobLimit()).toBe(3);
  });

  it("lets small jobs fill the limit: one attempt each, up to the limit", () => {
    const slots = new AttemptSlots(200, 20);
    for (let i = 0; i < 190; i++) slots.took(1);
    expect(slots.jobLimit()).toBe(191);
    for (let i = 0; i < 10; i++) slots.took(1);
    expect(slots.jobLimit()).toBe(200);
  });

  it("always lets the worker hold one job, and never more than the limit", () => {
    const small = new AttemptSlots(5, 20);
    expect(small.jobLimit()).toBe(1);
    small.took(20);
    expect(small.jobLimit()).toBe(1);
    const one = new AttemptSlots(3, 1);
    expect(one.jobLimit()).toBe(3);
  });

  it("runs at most the limit of attempts at a time, whatever the jobs carry", async () => {
    const slots = new AttemptSlots(5, 20);
    const { attempt, seen } = timedAttempt(5);
    await Promise.all(Array.from({ length: 20 }, () => slots.send(attempt)));
    expect(seen.most).toBe(5);
    expect(seen.finished).toBe(20);
  });

  it("once closed, starts none of the attempts still waiting for a slot; those running finish", async () => {
    const slots = new AttemptSlots(2, 20);
    const { attempt, seen } = timedAttempt(20);
    const sent = Array.from({ length: 5 }, () =>
      slots.send(async () => {
        await attempt();
        return true;
      }),
    );
    await new Promise((r) => setTimeout(r, 5));
    slots.close();
    expect(await Promise.all(sent)).toEqual([true, true, undefined, undefined, undefined]);
    expect([seen.started, seen.finished]).toEqual([2, 2]);
  });
});
