import { describe, expect, it } from "vitest";
import { BackgroundWork } from "../src/background.js";

/** A promise and the functions that settle it. */
function deferred() {
  let resolve: () => void = () => {};
  let reject: (err: Error) => void = () => {};
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("BackgroundWork", () => {
  it("counts what is under way and forgets what has ended", async () => {
    const work = new BackgroundWork();
    const a = deferred();
    work.add(a.promise, () => {});
    expect(work.size).toBe(1);
    a.resolve();
    await work.drain();
    expect(work.size).toBe(0);
  });

  it("hands a failure to onError, never to the caller or to drain", async () => {
    const work = new BackgroundWork();
    const failures: string[] = [];
    const a = deferred();
    work.add(a.promise, (err) => failures.push((err as Error).message));
    a.reject(new Error("broken"));
    await work.drain();
    expect(failures).toEqual(["broken"]);
  });

  it("drains also the work added while it waits", async () => {
    const work = new BackgroundWork();
    const first = deferred();
    const second = deferred();
    const order: string[] = [];
    work.add(
      first.promise.then(() => {
        order.push("first");
        // more work, started by the first as it ends
        work.add(second.promise.then(() => order.push("second")), () => {});
      }),
      () => {},
    );
    let drained = false;
    const draining = work.drain().then(() => {
      drained = true;
    });
    first.resolve();
    await new Promise((r) => setTimeout(r, 10));
    expect(drained).toBe(false);
    second.resolve();
    await draining;
    expect(order).toEqual(["first", "second"]);
  });
});
