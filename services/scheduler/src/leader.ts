// Only one scheduler replica is active. Leadership is a lease in PostgreSQL
// (the scheduler_lease row, RELIABILITY.md "Leadership"): the active replica
// renews it every second from a connection of its own, and it runs out
// LEASE_MS after the last renewal. A standby tries every second and takes it
// when it has run out (the active one froze, or lost its network), or at
// once when the holder's connection is gone (it died). Each takeover starts
// a new epoch, and every transaction of the active replica checks its epoch
// first (`check`), so a replica that wakes up after losing the lease commits
// nothing, even before it has noticed.
import { randomUUID } from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { acquireLease, checkLease, clientRunner, LeaseLost, type NoticeReason, releaseLease, renewLease, sessionOptions, type SqlRunner } from "@ttr/db";
import { type Logger, OutageLog } from "@ttr/platform";

/** How long a lease lasts without renewal: a frozen leader is replaced within this plus RETRY_MS. */
export const LEASE_MS = 5000;
/** How often the leader renews and a standby tries. */
export const RETRY_MS = 1000;
/**
 * The leader stops trusting its lease this long before the server would let
 * it run out: its own clock measures from before the renewal was sent, and
 * this leaves room for the two clocks to run at slightly different rates.
 */
const MARGIN_MS = 500;

/**
 * Server settings for the scheduler's sessions. A transaction left open by
 * a frozen or cut-off replica is ended by the server within 5 s, releasing
 * its locks (the lease's among them); keepalives find a vanished client in
 * about 11 s, so its connection, and the process id the lease names, go too.
 */
export const SCHEDULER_SESSION_SETTINGS = {
  idle_in_transaction_session_timeout: "5s",
  tcp_keepalives_idle: 5,
  tcp_keepalives_interval: 2,
  tcp_keepalives_count: 3,
} as const;

/** A client this replica is done with: its late errors and its end are no longer news. */
function silenced(client: pg.Client): pg.Client {
  client.removeAllListeners();
  client.on("error", () => {});
  return client;
}

/** What the active replica's work asks of the lease. */
export interface Fence {
  /** Throws LeaseLost unless this replica holds the lease; key-share locks it for the rest of `tx`. */
  check(tx: SqlRunner): Promise<void>;
  /** Whether this replica holds the lease, by its own clock (no round trip). */
  held(): boolean;
}

export class Leadership implements Fence {
  /** this replica, as the lease names it */
  readonly id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private client: pg.Client | null = null;
  private epoch: string | null = null;
  /** performance.now() until which the lease is trusted */
  private validUntil = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly outage: OutageLog;
  /** whether a connection of this replica has listened before */
  private listened = false;

  /**
   * `listen`: channels to LISTEN on from the leadership's connection (it is
   * open for as long as the replica runs), each with what to do on a
   * notice. A notice sent while the connection was being made again is
   * missed, so each is also called ("reconnected") once it listens again.
   */
  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly onChange: (leading: boolean) => void,
    private readonly listen: Record<string, (reason: NoticeReason) => void> = {},
  ) {
    this.outage = new OutageLog(log, "postgres", { connection: "ttr-scheduler-leader" });
  }

  get isLeader(): boolean {
    return this.epoch !== null;
  }

  held(): boolean {
    return this.epoch !== null && performance.now() < this.validUntil;
  }

  async check(tx: SqlRunner): Promise<void> {
    const epoch = this.epoch;
    if (epoch === null || !this.held()) throw new LeaseLost(epoch ?? "none");
    await checkLease(tx, epoch);
  }

  start(): void {
    void this.attempt();
  }

  private schedule(ms: number): void {
    if (!this.stopped) this.timer = setTimeout(() => void this.attempt(), ms);
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.databaseUrl,
      application_name: "ttr-scheduler-leader",
      keepAlive: true,
      keepAliveInitialDelayMillis: 1000,
      connectionTimeoutMillis: 3000,
      // a renewal that has not answered by then is late anyway
      query_timeout: LEASE_MS - MARGIN_MS,
      options: sessionOptions(SCHEDULER_SESSION_SETTINGS),
    });
    client.on("error", (err) => this.drop(`leader connection error: ${err.message}`));
    client.on("end", () => this.drop("leader connection ended"));
    client.on("notification", (notice) => this.listen[notice.channel]?.("notice"));
    await client.connect();
    try {
      // channel names are the program's own identifiers, never input
      for (const channel of Object.keys(this.listen)) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      void silenced(client).end().catch(() => {});
      throw err;
    }
    if (this.listened) for (const handler of Object.values(this.listen)) handler("reconnected");
    this.listened = true;
    return client;
  }

  private async attempt(): Promise<void> {
    try {
      this.client ??= await this.connect();
      const db = clientRunner(this.client);
      const sentAt = performance.now();
      if (this.epoch === null) {
        const epoch = await acquireLease(db, this.id, LEASE_MS);
        if (epoch !== null && !this.stopped) {
          this.epoch = epoch;
          this.validUntil = sentAt + LEASE_MS - MARGIN_MS;
          this.log.info("became the active scheduler", { epoch });
          this.onChange(true);
        }
      } else if (await renewLease(db, this.epoch, LEASE_MS)) {
        this.validUntil = sentAt + LEASE_MS - MARGIN_MS;
      } else {
        this.lose("the lease ran out or was taken over");
      }
      this.outage.recovered();
    } catch (err) {
      this.outage.failed(err);
      this.drop(`leader check failed: ${(err as Error).message}`);
    }
    this.schedule(RETRY_MS);
  }

  /** The leadership connection is unusable: close it, and give up the lease it renews. */
  private drop(reason: string): void {
    const client = this.client;
    this.client = null;
    if (client) void silenced(client).end().catch(() => {});
    this.lose(reason);
  }

  private lose(reason: string): void {
    if (this.epoch === null) return;
    const epoch = this.epoch;
    this.epoch = null;
    this.validUntil = 0;
    this.log.warn("lost leadership", { reason, epoch });
    this.onChange(false);
  }

  /** Stops trying; a held lease is given up so that a standby takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const { client, epoch } = this;
    this.client = null;
    this.epoch = null;
    if (client) {
      silenced(client);
      if (epoch !== null) await releaseLease(clientRunner(client), epoch).catch(() => {});
      await client.end().catch(() => {});
    }
  }
}
