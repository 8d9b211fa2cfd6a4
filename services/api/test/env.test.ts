// The api's settings (services/api/src/env.ts), as an operator writes them.
import { describe, expect, it } from "vitest";
import { loadEnv } from "../src/env.js";

const base = { DATABASE_URL: "postgresql://127.0.0.1/ttr", REDIS_URL: "redis://127.0.0.1:6379" };

describe("TRUST_PROXY", () => {
  it.each([
    [undefined, false],
    ["", false],
    ["false", false],
    ["true", true],
    ["1", 1],
    ["2", 2],
    ["loopback, uniquelocal", "loopback, uniquelocal"],
    ["10.0.0.0/8", "10.0.0.0/8"],
  ])("%j → %j (express's trust proxy setting)", (text, expected) => {
    expect(loadEnv({ ...base, ...(text === undefined ? {} : { TRUST_PROXY: text }) }).TRUST_PROXY).toEqual(expected);
  });
});

describe("DB_READ_TIMEOUT_MS", () => {
  it("defaults to 5 s and takes a number of milliseconds", () => {
    expect(loadEnv(base).DB_READ_TIMEOUT_MS).toBe(5_000);
    expect(loadEnv({ ...base, DB_READ_TIMEOUT_MS: "800" }).DB_READ_TIMEOUT_MS).toBe(800);
  });
  it.each(["0", "50", "abc", "1.5"])("refuses %j", (text) => {
    expect(() => loadEnv({ ...base, DB_READ_TIMEOUT_MS: text })).toThrow(/DB_READ_TIMEOUT_MS/);
  });
});
