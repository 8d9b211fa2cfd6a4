// The two service configurations the bench runs. `tuned` is what an
// operator would set on a 2-core machine for throughput; `defaults` is ttr
// out of the box. Every figure in BENCHMARKS.md says which one it used.

/**
 * @typedef {object} Config
 * @property {string} label
 * @property {number} concurrency  EXECUTOR_CONCURRENCY (and the baseline worker's concurrency)
 * @property {{env?: Record<string,string>, schedulerEnv?: Record<string,string>, executorEnv?: Record<string,string>, apiEnv?: Record<string,string>}} services
 */

/** @type {Config} */
export const tuned = {
  label: "tuned",
  concurrency: 200,
  services: {
    schedulerEnv: { SCHEDULER_BATCH_SIZE: "500" },
    executorEnv: { EXECUTOR_CONCURRENCY: "200", DB_POOL_SIZE: "20" },
  },
};

/** @type {Config} */
export const defaults = { label: "defaults", concurrency: 100, services: {} };

/** The environment a config sets, for the report. */
export function describeConfig(config) {
  const { env = {}, schedulerEnv = {}, executorEnv = {}, apiEnv = {} } = config.services;
  const pairs = [
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    ...Object.entries(schedulerEnv).map(([k, v]) => `scheduler ${k}=${v}`),
    ...Object.entries(executorEnv).map(([k, v]) => `executor ${k}=${v}`),
    ...Object.entries(apiEnv).map(([k, v]) => `api ${k}=${v}`),
  ];
  return pairs.length ? pairs.join(", ") : "all defaults";
}
