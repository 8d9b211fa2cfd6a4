import { prom } from "@ttr/platform";

export function createMetrics(registry: prom.Registry) {
  return {
    attempts: new prom.Counter({
      name: "ttr_attempts_total",
      help: "Finished attempts by outcome (success, http_failure, network_failure, unrecordable)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    lateness: new prom.Histogram({
      name: "ttr_fire_lateness_seconds",
      help: "Time from a trigger's scheduled second (or its creation, when made for a time already past) to its first attempt being sent",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    batchSize: new prom.Histogram({
      name: "ttr_executor_db_batch_size",
      help: "Attempts started or finished by one SQL statement",
      labelNames: ["statement"] as const,
      buckets: [1, 2, 5, 10, 20, 50, 100, 200],
      registers: [registry],
    }),
    deadLetters: new prom.Counter({
      name: "ttr_dead_letters_total",
      help: "Attempts recorded as dead letters: failed, with no retry left",
      registers: [registry],
    }),
    inFlight: new prom.Gauge({ name: "ttr_attempts_in_flight", help: "Attempts being sent by this process", registers: [registry] }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
