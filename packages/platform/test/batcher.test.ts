import { describe, expect, it } from "vitest";
import { Batcher, KeyedBatchers } from "../src/batcher.js";

const tick = () => new Promise((r) => setTimeout(r, 5));

describe("Batcher", () => {
  it("runs a lone call at once, and queues later calls into one batch while it runs", async () => {
    const seen: number[][] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const b = new Batcher<number, number>(
      async (xs) => {
        seen.push(xs);
        if (seen.length === 1) await gate;
        return xs.map((x) => x * 10);
      },
      { maxBatch: 100, parallel: 1 },
    );
    const first = b.call(1);
    await tick();
    expect(seen).toEqual([[1]]);
    const rest = [2, 3, 4, 5].map((x) => b.call(x));
    await tick();
    expect(seen).toEqual([[1]]);
    release();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([20, 30, 40, 50]);
    expect(seen).toEqual([[1], [2, 3, 4, 5]]);
  });

  it("keeps batches within maxBatch and runs up to `parallel` at once", async () => {
    let running = 0;
    let most = 0;
    const sizes: number[] = [];
    const b = new Batcher<number, number>(
      async (xs) => {
        running++;
        most = Math.max(most, running);
        sizes.push(xs.length);
        await tick();
        running--;
        return xs;
      },
      { maxBatch: 3, parallel: 2 },
    );
    const out = await Promise.all(Array.from({ length: 11 }, (_, i) => b.call(i)));
    expect(out).toEqual(Array.from({ length: 11 }, (_, i) => i));
    expect(most).toBe(2);
    expect(Math.max(...sizes)).toBe(3);
    expect(sizes.reduce((a, n) => a + n, 0)).toBe(11);
  });

  it("with lingerMs, waits that long for more calls to join, unless the batch is full", async () => {
    const seen: number[][] = [];
    const b = new Batcher<number, number>(
      async (xs) => {
        seen.push(xs);
        return xs;
      },
      { maxBatch: 3, parallel: 1, lingerMs: 40 },
    );
    const t0 = Date.now();
    const first = b.call(1);
    await tick();
    expect(seen).toEqual([]);
    const second = b.call(2);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(38);
    expect(seen).toEqual([[1, 2]]);
    // A full batch goes at once.
    const t1 = Date.now();
    await Promise.all([3, 4, 5].map((x) => b.call(x)));
    expect(Date.now() - t1).toBeLessThan(35);
    expect(seen).toEqual([[1, 2], [3, 4, 5]]);
  });

  it("after a failed batch, retries each input alone so only the bad one fails", async () => {
    const b = new Batcher<number, number>(
      async (xs) => {
        if (xs.includes(3)) throw new Error(`bad ${xs.join(",")}`);
        return xs.map((x) => -x);
      },
      { maxBatch: 10, parallel: 1 },
    );
    const hold = b.call(0);
    const calls = [1, 2, 3, 4].map((x) => b.call(x).then((v) => ({ v }), (e: Error) => ({ e: e.message })));
    await hold;
    expect(await Promise.all(calls)).toEqual([{ v: -1 }, { v: -2 }, { e: "bad 3" }, { v: -4 }]);
  });

  it("with retryAlone saying no for an error, fails every call of that batch with it and runs none again", async () => {
    const seen: number[][] = [];
    const b = new Batcher<number, number>(
      async (xs) => {
        seen.push(xs);
        if (xs.includes(3)) throw new Error(xs.includes(4) ? "lost" : "bad");
        return xs.map((x) => -x);
      },
      { maxBatch: 10, parallel: 1, retryAlone: (err) => (err as Error).message !== "lost" },
    );
    const hold = b.call(0);
    const calls = [1, 3, 4].map((x) => b.call(x).then((v) => ({ v }), (e: Error) => ({ e: e.message })));
    await hold;
    expect(await Promise.all(calls)).toEqual([{ e: "lost" }, { e: "lost" }, { e: "lost" }]);
    expect(seen).toEqual([[0], [1, 3, 4]]);
  });

  it("with failWaiting saying yes for an error, a batch that fails with it fails the calls waiting behind it too, without running them", async () => {
    const seen: number[][] = [];
    const b = new Batcher<number, number>(
      async (xs) => {
        seen.push(xs);
        await tick();
        if (xs.includes(0)) throw new Error(seen.length === 1 ? "silent" : "other");
        return xs.map((x) => -x);
      },
      { maxBatch: 10, parallel: 1, failWaiting: (err) => (err as Error).message === "silent" },
    );
    const settle = (x: number) => b.call(x).then((v) => ({ v }), (e: Error) => ({ e: e.message }));
    const first = settle(0);
    const waiting = [1, 2].map(settle);
    expect(await Promise.all([first, ...waiting])).toEqual([{ e: "silent" }, { e: "silent" }, { e: "silent" }]);
    expect(seen).toEqual([[0]]);
    // another error leaves the waiting calls to run
    const again = settle(0);
    const later = settle(5);
    expect(await Promise.all([again, later])).toEqual([{ e: "other" }, { v: -5 }]);
  });
});

describe("KeyedBatchers", () => {
  it("batches calls per key, never across keys, and forgets a key once nothing of it is pending", async () => {
    const seen: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const made: string[] = [];
    const k = new KeyedBatchers<number, string>((key) => {
      made.push(key);
      return new Batcher(
        async (xs) => {
          seen.push(`${key}:${xs.join(",")}`);
          await gate;
          return xs.map((x) => `${key}${x}`);
        },
        { maxBatch: 100, parallel: 1 },
      );
    });
    const calls = [k.call("a", 1), k.call("b", 1), k.call("a", 2), k.call("a", 3), k.call("b", 2)];
    await tick();
    expect(seen).toEqual(["a:1", "b:1"]);
    expect(k.size).toBe(2);
    release();
    expect(await Promise.all(calls)).toEqual(["a1", "b1", "a2", "a3", "b2"]);
    expect(seen).toEqual(["a:1", "b:1", "a:2,3", "b:2"]);
    expect(k.size).toBe(0);
    expect(await k.call("a", 4)).toBe("a4");
    expect(made).toEqual(["a", "b", "a"]);
  });
});
