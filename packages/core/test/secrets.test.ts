// Passwords: salted scrypt with today's settings; older settings still
// verify and are flagged for a new hash.
import { expect, it } from "vitest";
import { hashPassword, passwordNeedsRehash, verifyPassword } from "../src/index.js";

it("hashes with a fresh salt each time, verifies the right password only, and needs no rehash", async () => {
  const [a, b] = [await hashPassword("correct horse"), await hashPassword("correct horse")];
  expect(a).not.toBe(b);
  expect(a).toMatch(/^scrypt\$16384\$8\$5\$[\w-]{22}\$[\w-]{43}$/);
  expect(await verifyPassword("correct horse", a)).toBe(true);
  expect(await verifyPassword("correct horse!", a)).toBe(false);
  expect(passwordNeedsRehash(a)).toBe(false);
});

it("flags hashes made with other settings or of another kind", () => {
  expect(passwordNeedsRehash("scrypt$16384$8$1$c2FsdA$aGFzaA")).toBe(true);
  expect(passwordNeedsRehash("scrypt$131072$8$1$c2FsdA$aGFzaA")).toBe(true);
  expect(passwordNeedsRehash("bcrypt$whatever")).toBe(true);
});

it("refuses a malformed stored hash rather than throwing", async () => {
  expect(await verifyPassword("x", "scrypt$16384$8")).toBe(false);
  expect(await verifyPassword("x", "")).toBe(false);
});
