import { defineConfig } from "vitest/config";

// One run covers unit tests of the packages, route tests of the services and
// the end-to-end and browser tests under test/. Files run in parallel
// processes; each gets its own database cloned from a migrated template
// (test/support/db.ts).
export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "test/e2e/**/*.test.ts", "test/browser/**/*.test.ts", "test/deploy/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default"],
  },
});
