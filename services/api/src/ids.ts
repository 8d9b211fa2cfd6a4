// Ids of new triggers and recurring triggers: UUIDv7, time-ordered so that
// index inserts stay at the right edge (docs/storage.md).
//
// The uuid package's own v7() draws 16 random bytes per id with one
// getRandomValues call each, 8 % of the api's CPU in a /bulk profile. Here
// the bytes come from a pool filled 256 ids at a time, and the state that
// keeps ids rising within one millisecond (which uuid keeps only when given
// no options) is kept below, the way uuid keeps it.
import { randomFillSync } from "node:crypto";
import { v7 } from "uuid";

const ID_BYTES = 16;
const pool = Buffer.allocUnsafe(ID_BYTES * 256);
let taken = pool.length;
let lastMs = Number.NEGATIVE_INFINITY;
let seq = 0;

export function newId(): string {
  if (taken === pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  const random = pool.subarray(taken, taken + ID_BYTES);
  taken += ID_BYTES;
  const now = Date.now();
  if (now > lastMs) {
    // a new millisecond: the counter starts at a random 31-bit value
    seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
    lastMs = now;
  } else {
    // the same millisecond (or the clock went back): one more than the last,
    // carrying into the timestamp when the counter wraps
    seq = (seq + 1) | 0;
    if (seq === 0) lastMs++;
  }
  return v7({ random, msecs: lastMs, seq });
}
