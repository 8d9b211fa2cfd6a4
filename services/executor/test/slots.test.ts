import { describe, expect, it } from "vitest";
import { AttemptSlots } from "../src/slots.js";

describe("AttemptSlots", () => {
  it("holds enough jobs to fill the attempt slots left, and no more", () => {
    const slots = new AttemptSlots(200, 20);
    expect(slots.jobLimit()).toBe(10);
    slots.took(20);
    expect(slots.jobLimit()).toBe(10); // 1 held + 180 left / 20
    slots.took(3);
    expect(slots.jobLimit()).toBe(11); // 2 held + ceil(177 / 20)
    slots.released(20);
    slots.released(3);
    expect(slots.jobLimit()).toBe(10);
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
    let running = 0;
    let most = 0;
    const attempt = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    };
    expect(await Promise.all(Array.from({ length: 20 }, () => slots.send(attempt)))).toEqual(Array(20).fill(true));
    expect(most).toBe(5);
  });

  it("once closed, starts none of the attempts still waiting for a slot; those running finish", async () => {
    const slots = new AttemptSlots(2, 20);
    let started = 0;
    let finished = 0;
    const attempt = async () => {
      started++;
      await new Promise((r) => setTimeout(r, 20));
      finished++;
    };
    const sent = Array.from({ length: 5 }, () => slots.send(attempt));
    await new Promise((r) => setTimeout(r, 5));
    slots.close();
    expect(await Promise.all(sent)).toEqual([true, true, false, false, false]);
    expect([started, finished]).toEqual([2, 2]);
  });
});
