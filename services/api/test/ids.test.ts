// Ids of new triggers: UUIDv7, rising within a millisecond, unique.
import { validate, version } from "uuid";
import { describe, expect, it } from "vitest";
import { newId } from "../src/ids.js";

/** The 48-bit millisecond timestamp at the front of a UUIDv7. */
const msOf = (id: string) => Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16);

describe("newId", () => {
  it("makes version 7 UUIDs stamped with the current time", () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(validate(id)).toBe(true);
    expect(version(id)).toBe(7);
    expect(msOf(id)).toBeGreaterThanOrEqual(before);
    expect(msOf(id)).toBeLessThanOrEqual(after + 1);
  });

  it("makes ids that rise strictly, within one millisecond and across the random pool's refills", () => {
    // 5,000 ids: many per millisecond, and about 20 refills of the 256-id pool
    const ids = Array.from({ length: 5000 }, () => newId());
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `${ids[i - 1]} then ${ids[i]}`).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const perMs = new Map<number, number>();
    for (const id of ids) perMs.set(msOf(id), (perMs.get(msOf(id)) ?? 0) + 1);
    expect(Math.max(...perMs.values())).toBeGreaterThan(1);
  });

  it("draws fresh random bytes for each id", () => {
    // the last 62 bits are random: two ids never share them
    const tails = new Set(Array.from({ length: 1000 }, () => newId().replaceAll("-", "").slice(-15)));
    expect(tails.size).toBe(1000);
  });
});
