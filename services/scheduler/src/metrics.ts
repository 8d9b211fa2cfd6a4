import { prom } from "@ttr/platform";

/** How many (project, tag) backlogs ttr_attempts_held_by_tag shows: a bound on its series, whatever the number of tags. */
export const HELD_TAGS_SHOWN = 20;

/**
 * `queueDepth` answers how many attempts wait in the queue (null when it
 * cannot tell): counted in PostgreSQL, as a queue job may carry several.
 */
export function createMetrics(registry: prom.Registry, queueDepth: () => Promise<number | null>, tickRunningSeconds: () => number) {
  return {
    promoted: new prom.Counter({ name: "ttr_triggers_promoted_total", help: "Due triggers moved to queued", registers: [registry] }),
    instances: new prom.Counter({ name: "ttr_instances_created_total", help: "Pending instances created for recurring triggers", registers: [registry] }),
    dispatched: new prom.Counter({ name: "ttr_attempts_dispatched_total", help: "Attempts handed to the executor queue", registers: [registry] }),
    reaped: new prom.Counter({ name: "ttr_attempts_reaped_total", help: "Lost attempts closed as Executor died", registers: [registry] }),
    requeued: new prom.Counter({ name: "ttr_attempts_requeued_total", help: "Dispatched attempts whose queue job was lost and re-enqueued", registers: [registry] }),
    leader: new prom.Gauge({ name: "ttr_scheduler_leader", help: "1 while this replica is the active scheduler", registers: [registry] }),
    tickSeconds: new prom.Histogram({
      name: "ttr_scheduler_tick_duration_seconds",
      help: "Time one scheduler tick takes to claim and dispatch what is due (the sweeps after it are timed apart)",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    tickRunning: new prom.Gauge({
      name: "ttr_scheduler_tick_running_seconds",
      help: "How long the tick in progress has run, 0 between ticks: a tick that waits on a store that does not answer grows it without end",
      registers: [registry],
      collect() {
        this.set(tickRunningSeconds());
      },
    }),
    sweepSeconds: new prom.Histogram({
      name: "ttr_scheduler_sweep_duration_seconds",
      help: "Time the periodic sweeps take (lost attempts, missing instances, admission repair, held counts, lost queue jobs), run after a tick every few seconds",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    retentionRemoved: new prom.Counter({
      name: "ttr_retention_rows_removed_total",
      help: "History rows removed by retention, by table",
      labelNames: ["table"],
      registers: [registry],
    }),
    retentionPartitions: new prom.Counter({ name: "ttr_retention_partitions_dropped_total", help: "Day partitions dropped by retention", registers: [registry] }),
    retentionMoved: new prom.Counter({ name: "ttr_retention_rows_moved_total", help: "Triggers moved out of an old day partition because they must stay", registers: [registry] }),
    retentionDeferred: new prom.Gauge({ name: "ttr_retention_partitions_deferred", help: "Day partitions past retention left for the next pass (a transaction older than the pass still open, or rows of the day locked)", registers: [registry] }),
    retentionLastRun: new prom.Gauge({ name: "ttr_retention_last_run_timestamp_seconds", help: "When the last retention pass started", registers: [registry] }),
    retentionLastSuccess: new prom.Gauge({ name: "ttr_retention_last_success_timestamp_seconds", help: "When the last retention pass that removed every day past the cutoff finished", registers: [registry] }),
    retentionSeconds: new prom.Histogram({
      name: "ttr_retention_pass_duration_seconds",
      help: "Time one retention pass takes",
      buckets: [0.05, 0.25, 1, 5, 30, 120, 600],
      registers: [registry],
    }),
    fullTags: new prom.Gauge({ name: "ttr_tags_full", help: "Tags whose policy held attempts back in the last tick", registers: [registry] }),
    held: new prom.Gauge({
      name: "ttr_attempts_held",
      help: "Due attempts waiting for room under a tag policy (or for the next tick)",
      registers: [registry],
    }),
    heldByTag: new prom.Gauge({
      name: "ttr_attempts_held_by_tag",
      help: `Due attempts a tag policy holds back, per project and tag; the ${HELD_TAGS_SHOWN} largest backlogs only`,
      labelNames: ["project", "tag"] as const,
      registers: [registry],
    }),
    queueDepth: new prom.Gauge({
      name: "ttr_queue_depth",
      help: "Attempts handed to the executor queue and not started yet; the executors' scaling signal",
      registers: [registry],
      async collect() {
        const depth = await queueDepth();
        if (depth !== null) this.set(depth);
      },
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Zeroes what only the active scheduler measures (held attempts, full tags,
 * deferred day partitions), once a replica has stopped leading: a
 * stepped-down replica would otherwise show its last backlog for good, and
 * dashboards take the largest value across replicas.
 */
export function clearLeaderGauges(metrics: Metrics): void {
  metrics.held.set(0);
  metrics.fullTags.set(0);
  metrics.heldByTag.reset();
  metrics.retentionDeferred.set(0);
}
