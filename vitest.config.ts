import { defineConfig } from "vitest/config";

// One run covers unit tests of the packages, route tests of the services and
// the end-to-end and browser tests under test/. Files run in parallel
// processes; each gets its own database cloned from a migrated template
// (test/support/db.ts).
//
// Two files measure time against a budget on purpose and load the machine
// hard while they do: the index guard (seeds over a million rows, keeping
// PostgreSQL busy for most of a minute) and the 10,000-item /declare and
// /bulk budget. They run after the rest, one at a time, so that neither they
// nor the other files' timings suffer from sharing the two cores.
const ALONE = ["packages/db/test/index-served.test.ts", "services/api/test/declare-scale.test.ts"];

export default defineConfig({
  test: {
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "suite",
          include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "test/e2e/**/*.test.ts", "test/browser/**/*.test.ts", "test/deploy/**/*.test.ts", "test/faults/**/*.test.ts", "test/docs/**/*.test.ts"],
          exclude: [...ALONE, "**/node_modules/**"],
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: "alone", include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
